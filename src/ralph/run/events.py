"""What the loop tells its displays: plain frozen records, no I/O."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, is_dataclass
from typing import Any, Literal

from ralph.rules.agents.pool import Seat
from ralph.rules.counts.runtotals import RunTotals
from ralph.rules.counts.state import MAX_COUNT, State, Tally, usage_to_json
from ralph.rules.evidence.testcounts import TestCounts
from ralph.rules.text.prompt import Mode


@dataclass(frozen=True)
class SpecRow:
    """One line of the spec matrix as a display shows it."""

    path: str
    done_count: int
    last_status: str | None  # None: never processed
    modified_files: bool
    tests: TestCounts | None = None  # the last test run its DONE checks read

    @property
    def needs_work(self) -> bool:
        return self.done_count < MAX_COUNT


def matrix_rows(state: State) -> tuple[SpecRow, ...]:
    """The spec matrix of `state`, as the displays show it."""
    return tuple(
        SpecRow(s.path, s.done_count, s.last_status, s.modified_files, s.tests) for s in state.specs
    )


# The words every JSON view of a run uses (events, `status --json`, the reports):
# - iteration: a rotation's number, one rotation for the life of the project (never restarts);
# - run_iteration: its place in this run (1 for the run's first rotation);
# - max_iterations: this run's budget of rotations (`--max-iterations`), never a global number;
# - elapsed, seconds, started_at, until: seconds, rounded to milliseconds;
# - usage: a Tally as `usage_to_json` writes it (cost_usd null when no rotation had a price);
# - lane: the lane (`--parallel`) a rotation ran in, its worktree's name; absent otherwise.

# A field that a JSON view leaves out while it is None (a run without lanes has no `lane`).
OMITTED_WHEN_NONE = {"omit_none": True}


@dataclass(frozen=True)
class RunStarted:
    agent: str
    iteration: int  # rotations numbered before this run (counts for the life of the project)
    max_iterations: int  # this run's budget of rotations
    matrix: tuple[SpecRow, ...]


@dataclass(frozen=True)
class RotationStarted:
    agent: str
    spec: str  # path relative to the project root, forward slashes
    mode: Mode
    iteration: int  # number of this rotation (1-based, for the life of the project)
    run_iteration: int  # its place in this run (1-based)
    max_iterations: int  # this run's budget
    started_at: float  # time.time() when the agent was started
    matrix: tuple[SpecRow, ...]
    lane: str | None = field(default=None, metadata=OMITTED_WHEN_NONE)
    model: str | None = field(default=None, metadata=OMITTED_WHEN_NONE)  # the agent's, if set


@dataclass(frozen=True)
class AgentOutput:
    """Readable lines the agent printed (decoded, each bounded in length), one chunk's worth."""

    stream: Literal["stdout", "stderr"]
    lines: tuple[str, ...]
    spec: str = ""  # the rotation's spec (ALL_SPECS for the final verification)
    iteration: int = 0  # the rotation's number
    lane: str | None = field(default=None, metadata=OMITTED_WHEN_NONE)


@dataclass(frozen=True)
class RotationEnded:
    agent: str
    spec: str
    mode: Mode
    iteration: int
    run_iteration: int
    max_iterations: int
    # DONE, CONTINUE, ROTATE, STUCK, NONE (no signal), ERROR (failed rotation), REFUSED (a DONE
    # whose completion checks failed; the note says which)
    signal: str
    files_changed: int
    done_count: int  # the spec's counter after this rotation
    elapsed: float  # seconds the rotation took
    note: str | None  # why a rotation failed, or a warning (no signal)
    downgraded: tuple[str, ...]  # other specs that dropped from 3/3 to 2/3
    matrix: tuple[SpecRow, ...]
    usage: Tally | None = None  # this rotation's tokens and cost (rotations=1), as reported
    lane: str | None = field(default=None, metadata=OMITTED_WHEN_NONE)
    checks: float | None = field(default=None, metadata=OMITTED_WHEN_NONE)  # of `elapsed`


@dataclass(frozen=True)
class Notice:
    level: Literal["info", "warning"]
    message: str


@dataclass(frozen=True)
class RunEnded:
    exit_code: int
    reason: str
    iteration: int  # the last rotation's number
    run_iteration: int  # rotations this run
    max_iterations: int  # this run's budget
    matrix: tuple[SpecRow, ...]
    usage: Tally | None = None  # what this run spent, as reported
    costs: dict[str, Any] | None = None  # per spec and per verified spec, and the forecast
    totals: RunTotals | None = None  # the run's numbers (usage is its usage), times included


@dataclass(frozen=True)
class PoolChanged:
    """An agent of the pool was benched (rate limit), evicted (failures) or came back."""

    seats: tuple[Seat, ...]


@dataclass(frozen=True)
class Waiting:
    """No agent is available: ralph waits until `until` (epoch seconds) for a limit to reset.

    Sent when the wait starts and then about once a minute, so plain logs show a countdown."""

    until: float
    reason: str


@dataclass(frozen=True)
class CancelRequested:
    """`ralph cancel` asked this run to stop: after the current rotation, or now."""

    mode: str  # "after" or "now"


@dataclass(frozen=True)
class CostsUpdated:
    """After a rotation: what a verified spec costs and what the open ones will (rules/forecast)."""

    line: str | None  # one line for a display; None before anything was spent
    costs: dict[str, Any]


Event = (
    RunStarted
    | RotationStarted
    | AgentOutput
    | RotationEnded
    | Notice
    | RunEnded
    | PoolChanged
    | Waiting
    | CancelRequested
    | CostsUpdated
)


def event_name(event: object) -> str:
    """`RotationEnded` -> `rotation_ended`: the name tools see in `--log-format json`."""
    name = type(event).__name__
    return "".join(f"_{c.lower()}" if c.isupper() and i else c.lower() for i, c in enumerate(name))


def carried(event: Event, into: type, *left: str) -> dict[str, Any]:
    """The event's fields that the view or report `into` (a dataclass) declares too, by name
    (but `left`): a field added to both reaches it with nothing copied by hand."""
    names = {f.name for f in fields(into)} - set(left)
    return {f.name: getattr(event, f.name) for f in fields(event) if f.name in names}


def event_fields(event: object) -> dict[str, Any]:
    """An event's fields as JSON-ready values, whatever the event type and its fields:
    events added later (check results, usage) flow through displays and reports unchanged."""
    if not is_dataclass(event) or isinstance(event, type):
        return {}
    return {
        f.name: _plain(value, f.name)
        for f in fields(event)
        if (value := getattr(event, f.name)) is not None or not f.metadata.get("omit_none")
    }


# Times in seconds: milliseconds are enough (costs and ratios keep their precision).
SECONDS_KEYS = frozenset(
    {"elapsed", "started_at", "ended_at", "until", "seconds", "duration", "checks"}
)


def _plain(value: Any, key: str = "") -> Any:
    if isinstance(value, Tally):
        return usage_to_json(value)
    if isinstance(value, float) and key in SECONDS_KEYS:
        return round(value, 3)
    if is_dataclass(value) and not isinstance(value, type):
        out = {f.name: _plain(getattr(value, f.name), f.name) for f in fields(value)}
        if isinstance(value, SpecRow):
            out["needs_work"] = value.needs_work
        return out
    if isinstance(value, dict):
        return {str(k): _plain(v, str(k)) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)
