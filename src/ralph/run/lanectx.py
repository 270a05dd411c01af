"""What one lane's rotation sees in place of the run's context: the lane's worktree as the
project root, its own prompt file, output log and snapshot, a private copy of the state that
joins the run's state through the hub (the one writer), and the shared pool's members."""

from __future__ import annotations

import threading
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from ralph.process.tree import started_at
from ralph.rules.state import State
from ralph.run.circuit import Circuit
from ralph.run.context import RunContext
from ralph.run.events import Event
from ralph.run.facts import Fact
from ralph.run.rotation import Rotation
from ralph.store.files import make_dirs
from ralph.store.workspace import Workspace


class Hub(Protocol):
    """The coordinator as a lane sees it: every write of the run's files goes through it."""

    def absorb(self, lane: LaneContext) -> None: ...

    def lane_emit(self, lane: LaneContext, event: Event | Fact) -> None: ...

    def lane_info(self, name: str, info: dict[str, Any]) -> None: ...


@dataclass(frozen=True)
class LaneWorkspace(Workspace):
    """The run's `.ralph/` (handoffs, history, worklog are shared), with the files each lane
    needs of its own under `.ralph/lanes/<name>/`."""

    lane: str = ""

    @property
    def lane_dir(self) -> Path:
        return self.dir / "lanes" / self.lane

    @property
    def prompt_file(self) -> Path:
        return self.lane_dir / "prompt.md"

    @property
    def current_log(self) -> Path:
        return self.lane_dir / "current.log"

    @property
    def snapshot_file(self) -> Path:
        return self.lane_dir / "snapshot.json"


class LaneLock:
    """run.json as a lane writes it: its news go under `lanes.<name>`."""

    def __init__(self, hub: Hub, name: str) -> None:
        self.hub = hub
        self.name = name

    def update(self, **info: Any) -> None:
        self.hub.lane_info(self.name, info)

    def record_agent(self, pid: int) -> None:
        self.update(agent_pid=pid, agent_started=started_at(pid))


class LaneCancel:
    """`ralph cancel` of the run, and a stop of this lane's agent of its own (Ctrl-C)."""

    def __init__(self, run: Any, now: threading.Event) -> None:
        self.run = run  # the run's CancelWatch
        self.now = now

    @property
    def requested(self) -> bool:
        return bool(self.run.requested)

    def linked(self) -> Any:
        return self.run.linked()


class LaneCircuit(Circuit):
    """Outcomes a lane's rotation feeds are kept for the coordinator, which feeds the run's
    one circuit breaker in the order rotations end."""

    def __init__(self, ctx: RunContext) -> None:
        super().__init__(ctx)
        self.outcomes: list[tuple[bool, str, str]] = []

    def feed(self, success: bool, reason: str, subject: str) -> None:
        self.outcomes.append((success, reason, subject))


class LaneContext(RunContext):
    def __init__(self, main: RunContext, hub: Hub, name: str, worktree: Path) -> None:
        # Whatever the run's context holds (its redactor, members, recorder...), then what is
        # the lane's own.
        self.__dict__.update(main.__dict__)
        self.main = main
        self.hub = hub
        self.name = name
        self.spec_path = ""  # the spec of the lane's current rotation
        self.opts = replace(main.opts, root=worktree)
        self.ws = LaneWorkspace(main.ws.root, lane=name)
        self.lock = LaneLock(hub, name)  # type: ignore[assignment]
        self.stop = threading.Event()
        self.cancel = LaneCancel(main.cancel, self.stop)  # type: ignore[assignment]
        self._display = None
        self.last_result = None
        self.mode = main.mode
        self.last_changes = None
        self.state = main.state
        self.base = main.state  # the copy as the run's state last absorbed it
        self.answer = None
        self.rotation: Rotation | None = None  # the lane's rotation parts, made at its first
        self.repo: Any = None  # the worktree's GitPython repository
        make_dirs(self.ws.lane_dir)

    def start(self, state: State) -> None:
        """A fresh copy of the run's state before a rotation (its number already taken)."""
        self.state = state
        self.base = state
        self.limit = self.main.limit

    def emit(self, event: Event | Fact) -> None:
        self.hub.lane_emit(self, event)

    def save(self) -> None:
        self.hub.absorb(self)

    def note_run(self, **info: object) -> None:
        self.hub.lane_info(self.name, dict(info))
