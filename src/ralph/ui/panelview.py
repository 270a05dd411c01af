"""What the live panel shows, as an immutable view, and the pure reducer that folds events in."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Literal

from ralph.rules.agents.pool import Seat
from ralph.rules.counts.state import Tally
from ralph.rules.counts.usage import UNREPORTED, merge
from ralph.rules.text.prompt import Mode
from ralph.run.events import (
    AgentOutput,
    CancelRequested,
    CostsUpdated,
    Event,
    PoolChanged,
    RotationEnded,
    RotationStarted,
    RunEnded,
    RunStarted,
    SpecRow,
    Waiting,
    carried,
)
from ralph.ui.text import clean_line

OUTPUT_LINES = 8  # agent lines the panel keeps: enough context without pushing the matrix away
Phase = Literal["waiting", "starting", "running", "idle", "finished"]


@dataclass(frozen=True)
class LaneRow:
    """A rotation under way in a lane (`--parallel`): one row of the panel's lanes."""

    spec: str
    agent: str
    mode: Mode
    iteration: int
    started_at: float


@dataclass(frozen=True)
class PanelView:
    """Everything the live panel shows, built only from events (so rendering needs no I/O)."""

    agent: str | None = None
    phase: Phase = "waiting"
    spec: str | None = None
    mode: Mode | None = None
    iteration: int = 0  # the rotation's number, for the life of the project
    run_iteration: int = 0  # its place in this run
    max_iterations: int | None = None  # this run's budget
    started_at: float | None = None  # of the running rotation
    elapsed: float | None = None  # of the last finished rotation, frozen once it ended
    matrix: tuple[SpecRow, ...] = ()
    last: RotationEnded | None = None
    output: tuple[str, ...] = ()  # the running rotation's last OUTPUT_LINES agent lines
    exit_code: int | None = None
    reason: str | None = None
    run_usage: Tally = field(default_factory=Tally)  # what this run spent, as reported
    agent_usage: tuple[tuple[str, Tally], ...] = ()  # the same per agent
    seats: tuple[Seat, ...] = ()  # the pool's agents: benched, evicted or ready
    waiting_until: float | None = None  # no agent available: waiting for a limit to reset
    waiting_reason: str | None = None
    cancel: str | None = None  # `ralph cancel` asked the run to stop ("after" or "now")
    running: tuple[LaneRow, ...] = ()  # rotations under way, one per lane
    lanes: bool = False  # rotations ran side by side in this run: the panel shows its lanes
    costs: str | None = None  # per verified spec and the forecast for the open ones


def _lanes_started(view: PanelView, event: RotationStarted) -> PanelView:
    row = LaneRow(event.spec, event.agent, event.mode, event.iteration, event.started_at)
    running = (*(r for r in view.running if r.spec != event.spec), row)
    return replace(view, running=running, lanes=view.lanes or len(running) > 1)


def _lanes_ended(view: PanelView, event: RotationEnded) -> PanelView:
    return replace(view, running=tuple(r for r in view.running if r.spec != event.spec))


def _count_usage(view: PanelView, event: RotationEnded) -> PanelView:
    spent = event.usage if event.usage is not None else UNREPORTED
    agents = dict(view.agent_usage)
    agents[event.agent] = merge(agents.get(event.agent, Tally()), spent)
    return replace(view, run_usage=merge(view.run_usage, spent), agent_usage=tuple(agents.items()))


def apply_event(view: PanelView, event: Event) -> PanelView:
    """The view after `event`; pure, so the panel can be tested without a terminal or a clock."""
    if isinstance(event, CostsUpdated):
        return replace(view, costs=event.line)
    if isinstance(event, RunStarted):
        return replace(
            view,
            **carried(event, PanelView),
            phase="starting",
            run_iteration=0,
            exit_code=None,
            reason=None,
            cancel=None,
            run_usage=Tally(),
            agent_usage=(),
            waiting_until=None,
            waiting_reason=None,
        )
    if isinstance(event, RotationStarted):
        view = _lanes_started(view, event)
        return replace(
            view,
            **carried(event, PanelView),
            phase="running",
            elapsed=None,
            output=(),  # the previous agent's lines would be misread as this one's
            waiting_until=None,
            waiting_reason=None,
        )
    if isinstance(event, AgentOutput):
        shown = tuple(clean_line(line) for line in event.lines[-OUTPUT_LINES:])
        return replace(view, output=(*view.output, *shown)[-OUTPUT_LINES:])
    if isinstance(event, RotationEnded):
        view = _lanes_ended(_count_usage(view, event), event)
        return replace(
            view,
            **carried(event, PanelView),
            phase="running" if view.running else "idle",  # other lanes are still at work
            last=event,
        )
    if isinstance(event, RunEnded):
        return replace(
            view,
            **carried(event, PanelView, "costs"),  # the panel's cost line is CostsUpdated's
            phase="finished",
            # The run's own total (judges and the final verification included): the panel's
            # last word and the line printed under it are one number.
            run_usage=view.run_usage if event.usage is None else event.usage,
            running=(),
            waiting_until=None,
            waiting_reason=None,
        )
    if isinstance(event, CancelRequested):
        return replace(view, cancel=event.mode)
    if isinstance(event, PoolChanged):
        return replace(view, seats=event.seats)
    if isinstance(event, Waiting):
        return replace(
            view,
            phase="waiting",
            waiting_until=event.until,
            waiting_reason=event.reason,
            started_at=None,
            output=(),
        )
    # Notices are printed above the panel by the live display; the panel itself does not change.
    return view
