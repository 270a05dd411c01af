"""The panel's lanes: one row per lane at work (spec, agent, mode, rotation, elapsed, counter)
above the matrix, and no lanes row in a run that never ran two rotations side by side."""

from __future__ import annotations

import io
import time

from rich.console import Console

from ralph.rules.agents.pool import Seat
from ralph.rules.counts.state import Tally
from ralph.run.events import (
    Event,
    PoolChanged,
    RotationEnded,
    RotationStarted,
    RunStarted,
    SpecRow,
    Waiting,
)
from ralph.ui.panel import render_panel
from ralph.ui.panelview import PanelView, apply_event

T0 = 1_700_000_000.0
MATRIX = (SpecRow("specs/a.spec.md", 1, "DONE", True), SpecRow("specs/b.spec.md", 0, None, False))


def started(spec: str, iteration: int, at: float, agent: str = "claude") -> RotationStarted:
    return RotationStarted(agent, spec, "IMPLEMENT", iteration, iteration, 20, at, MATRIX)


def ended(spec: str, iteration: int) -> RotationEnded:
    return RotationEnded(
        "claude", spec, "IMPLEMENT", iteration, iteration, 20, "DONE", 1, 1, 2.0, None, (), MATRIX
    )


def panel(events: list[Event], now: float) -> str:
    view = PanelView()
    for event in events:
        view = apply_event(view, event)
    console = Console(record=True, width=100, color_system=None, file=io.StringIO())
    console.print(render_panel(view, now))
    return console.export_text()


def test_one_row_per_running_lane_above_the_matrix() -> None:
    events: list[Event] = [
        RunStarted("claude, codex", 0, 20, MATRIX),
        started("specs/a.spec.md", 1, T0),
        started("specs/b.spec.md", 2, T0 + 5, agent="codex"),
    ]
    text = panel(events, T0 + 65)
    lines = text.splitlines()
    lanes = next(i for i, line in enumerate(lines) if "Lanes:" in line)
    specs = next(i for i, line in enumerate(lines) if "Specs:" in line)
    assert lanes < specs
    row_a = next(line for line in lines[lanes:specs] if "specs/a.spec.md" in line)
    assert "claude" in row_a and "IMPLEMENT" in row_a and "#1" in row_a and " 1:05 " in row_a
    assert "1/3" in row_a
    row_b = next(line for line in lines[lanes:specs] if "specs/b.spec.md" in line)
    assert "codex" in row_b and "#2" in row_b and " 1:00 " in row_b and "0/3" in row_b


def test_a_lane_whose_rotation_ended_leaves_the_rows() -> None:
    events: list[Event] = [
        RunStarted("claude", 0, 20, MATRIX),
        started("specs/a.spec.md", 1, T0),
        started("specs/b.spec.md", 2, T0),
        ended("specs/a.spec.md", 1),
    ]
    text = panel(events, T0 + 3)
    lanes_part = text.split("Lanes:")[1].split("Specs:")[0]
    assert "specs/b.spec.md" in lanes_part and "specs/a.spec.md" not in lanes_part


def test_one_rotation_at_a_time_shows_no_lanes() -> None:
    events: list[Event] = [
        RunStarted("claude", 0, 20, MATRIX),
        started("specs/a.spec.md", 1, T0),
        ended("specs/a.spec.md", 1),
        started("specs/b.spec.md", 2, T0 + 3),
    ]
    assert "Lanes:" not in panel(events, T0 + 4)


def test_the_panel_footer_shows_the_cost_per_verified_spec_and_the_forecast() -> None:
    from ralph.run.events import CostsUpdated
    from ralph.ui.panelview import apply_event

    line = "per verified spec: $0.15, 3.3k tokens · 1 open: about $0.05, 1.1k tokens to finish"
    view = apply_event(PanelView(), CostsUpdated(line, {}))
    text = _rendered(view)
    row = next(line for line in text.splitlines() if "Cost:" in line)
    assert "per verified spec: $0.15, 3.3k tokens · 1 open: about $0.05" in row
    assert "Cost:" not in _rendered(PanelView())


def _rendered(view: PanelView) -> str:
    from rich.console import Console

    from ralph.ui.panel import render_panel

    console = Console(width=120, record=True, color_system=None)
    console.print(render_panel(view, 0.0))
    return console.export_text()


ROWS = (SpecRow("PROMPT.md", 0, None, False),)


START = 1_000_000.0


def usage_ended(agent: str, usage: Tally | None, iteration: int = 1) -> RotationEnded:
    return RotationEnded(
        agent,
        "PROMPT.md",
        "IMPLEMENT",
        iteration,
        iteration,
        20,
        "DONE",
        0,
        1,
        2.0,
        None,
        (),
        ROWS,
        usage,
    )


def view_of(events: list[Event]) -> PanelView:
    view = PanelView()
    for event in events:
        view = apply_event(view, event)
    return view


def usage_panel(events: list[Event], now: float = START) -> str:
    console = Console(record=True, width=100, color_system=None, file=io.StringIO())
    console.print(render_panel(view_of(events), now))
    return console.export_text()


CLAUDE = Tally(1, 12_000, 3_400, 0.42, 0)


CODEX = Tally(1, 5_000, 600, 0.0, 1)


def test_the_panel_adds_up_this_runs_usage_per_agent() -> None:
    events: list[Event] = [
        RunStarted("claude, codex", 0, 20, ROWS),
        usage_ended("claude", CLAUDE),
        usage_ended("codex", CODEX, 2),
        usage_ended("claude", CLAUDE, 3),
    ]
    view = view_of(events)
    assert view.run_usage == Tally(3, 29_000, 7_400, 0.84, 1)
    assert dict(view.agent_usage)["claude"] == Tally(2, 24_000, 6_800, 0.84, 0)
    text = usage_panel(events)
    assert "Usage:" in text and "29.0k in · 7.4k out · $0.84+" in text
    assert "claude: 24.0k in · 6.8k out · $0.84" in text
    assert "codex: 5.0k in · 600 out · —" in text


def test_a_new_run_starts_its_usage_at_zero() -> None:
    view = view_of([usage_ended("claude", CLAUDE), RunStarted("claude", 1, 21, ROWS)])
    assert view.run_usage == Tally() and view.agent_usage == ()


def test_no_usage_row_when_no_agent_reported_any() -> None:
    text = usage_panel([RunStarted("x", 0, 20, ROWS), usage_ended("x", None)])
    assert "Usage:" not in text


def test_the_panel_names_benched_and_evicted_agents() -> None:
    seats = (
        Seat("claude", benched_until=START + 3600, reset_known=True),
        Seat("codex", evicted=True, failures=3),
        Seat("pi"),
    )
    text = usage_panel([RunStarted("claude, codex, pi", 0, 20, ROWS), PoolChanged(seats)])
    hhmm = time.strftime("%H:%M", time.localtime(START + 3600))
    assert f"claude until {hhmm}" in text
    assert "codex evicted" in text
    assert "pi" in text.split("Agents:")[1]


def test_the_panel_counts_down_while_waiting() -> None:
    events: list[Event] = [
        RunStarted("claude", 0, 20, ROWS),
        Waiting(START + 125, "every agent is rate-limited (claude until 14:05)"),
    ]
    text = usage_panel(events, now=START)
    assert "ralph waiting for a rate limit to reset" in text  # the title: no agent at work
    assert "2:05 left" in text and "Ctrl-C stops" in text
    assert "1:05 left" in usage_panel(events, now=START + 60)  # the clock drives the countdown
    # the next rotation ends the wait
    after = [
        *events,
        RotationStarted("claude", "PROMPT.md", "IMPLEMENT", 2, 1, 20, START + 125, ROWS),
    ]
    assert "Waiting:" not in usage_panel(after, now=START + 126)
