"""What the loop tells its displays: plain frozen records, no I/O."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from ralph.state import MAX_COUNT

# JUDGE: a semantic check's judge (ralph.checks), answering VERIFIED or NOT_VERIFIED
Mode = Literal["IMPLEMENT", "REVIEW", "JUDGE"]


@dataclass(frozen=True)
class SpecRow:
    """One line of the spec matrix as a display shows it."""

    path: str
    done_count: int
    last_status: str | None  # None: never processed
    modified_files: bool

    @property
    def needs_work(self) -> bool:
        return self.done_count < MAX_COUNT


@dataclass(frozen=True)
class RunStarted:
    agent: str
    iteration: int  # rotations recorded before this run (keeps counting across runs)
    max_iteration: int  # the run stops once `iteration` reaches this
    matrix: tuple[SpecRow, ...]


@dataclass(frozen=True)
class RotationStarted:
    agent: str
    spec: str  # path relative to the project root, forward slashes
    mode: Mode
    iteration: int  # number of this rotation (1-based, global)
    max_iteration: int
    started_at: float  # time.time() when the agent was started
    matrix: tuple[SpecRow, ...]


@dataclass(frozen=True)
class AgentOutput:
    """Readable lines the agent printed (decoded, each bounded in length), one chunk's worth."""

    stream: Literal["stdout", "stderr"]
    lines: tuple[str, ...]


@dataclass(frozen=True)
class RotationEnded:
    agent: str
    spec: str
    mode: Mode
    iteration: int
    max_iteration: int
    # DONE, CONTINUE, ROTATE, STUCK, NONE (no signal), ERROR (failed rotation), REFUSED (a DONE
    # whose completion checks failed; the note says which)
    signal: str
    files_changed: int
    done_count: int  # the spec's counter after this rotation
    elapsed: float  # seconds the rotation took
    note: str | None  # why a rotation failed, or a warning (no signal)
    downgraded: tuple[str, ...]  # other specs that dropped from 3/3 to 2/3
    matrix: tuple[SpecRow, ...]


@dataclass(frozen=True)
class Notice:
    level: Literal["info", "warning"]
    message: str


@dataclass(frozen=True)
class RunEnded:
    exit_code: int
    reason: str
    iteration: int
    max_iteration: int
    matrix: tuple[SpecRow, ...]


Event = RunStarted | RotationStarted | AgentOutput | RotationEnded | Notice | RunEnded
