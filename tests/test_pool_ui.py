"""The pool in the displays (pure): usage per rotation and per run, agents benched or evicted,
the countdown while waiting for a rate limit to reset."""

from __future__ import annotations

import io
import time

from rich.console import Console

from ralph.rules.pool import Seat
from ralph.rules.state import Tally
from ralph.run.events import (
    Event,
    PoolChanged,
    RotationEnded,
    RotationStarted,
    RunEnded,
    RunStarted,
    SpecRow,
    Waiting,
)
from ralph.ui.panel import render_panel
from ralph.ui.panelview import PanelView, apply_event
from ralph.ui.plain import PlainDisplay

ROWS = (SpecRow("PROMPT.md", 0, None, False),)
T0 = 1_000_000.0


def ended(agent: str, usage: Tally | None, iteration: int = 1) -> RotationEnded:
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


def panel(events: list[Event], now: float = T0) -> str:
    console = Console(record=True, width=100, color_system=None, file=io.StringIO())
    console.print(render_panel(view_of(events), now))
    return console.export_text()


def plain(events: list[Event], now: float = T0) -> list[str]:
    out = io.StringIO()
    with PlainDisplay(out, clock=lambda: now) as display:
        for event in events:
            display.handle(event)
    return out.getvalue().splitlines()


CLAUDE = Tally(1, 12_000, 3_400, 0.42, 0)
CODEX = Tally(1, 5_000, 600, 0.0, 1)


def test_the_panel_adds_up_this_runs_usage_per_agent() -> None:
    events: list[Event] = [
        RunStarted("claude, codex", 0, 20, ROWS),
        ended("claude", CLAUDE),
        ended("codex", CODEX, 2),
        ended("claude", CLAUDE, 3),
    ]
    view = view_of(events)
    assert view.run_usage == Tally(3, 29_000, 7_400, 0.84, 1)
    assert dict(view.agent_usage)["claude"] == Tally(2, 24_000, 6_800, 0.84, 0)
    text = panel(events)
    assert "Usage:" in text and "29.0k in · 7.4k out · $0.84+" in text
    assert "claude: 24.0k in · 6.8k out · $0.84" in text
    assert "codex: 5.0k in · 600 out · —" in text


def test_a_new_run_starts_its_usage_at_zero() -> None:
    view = view_of([ended("claude", CLAUDE), RunStarted("claude", 1, 21, ROWS)])
    assert view.run_usage == Tally() and view.agent_usage == ()


def test_no_usage_row_when_no_agent_reported_any() -> None:
    text = panel([RunStarted("x", 0, 20, ROWS), ended("x", None)])
    assert "Usage:" not in text


def test_the_panel_names_benched_and_evicted_agents() -> None:
    seats = (
        Seat("claude", benched_until=T0 + 3600, reset_known=True),
        Seat("codex", evicted=True, failures=3),
        Seat("pi"),
    )
    text = panel([RunStarted("claude, codex, pi", 0, 20, ROWS), PoolChanged(seats)])
    hhmm = time.strftime("%H:%M", time.localtime(T0 + 3600))
    assert f"claude until {hhmm}" in text
    assert "codex evicted" in text
    assert "pi" in text.split("Agents:")[1]


def test_the_panel_counts_down_while_waiting() -> None:
    events: list[Event] = [
        RunStarted("claude", 0, 20, ROWS),
        Waiting(T0 + 125, "every agent is rate-limited (claude until 14:05)"),
    ]
    text = panel(events, now=T0)
    assert "ralph waiting for a rate limit to reset" in text  # the title: no agent at work
    assert "2:05 left" in text and "Ctrl-C stops" in text
    assert "1:05 left" in panel(events, now=T0 + 60)  # the clock drives the countdown
    # the next rotation ends the wait
    after = [*events, RotationStarted("claude", "PROMPT.md", "IMPLEMENT", 2, 1, 20, T0 + 125, ROWS)]
    assert "Waiting:" not in panel(after, now=T0 + 126)


def test_plain_lines_show_usage_the_wait_and_the_run_total() -> None:
    lines = plain(
        [
            ended("claude", CLAUDE),
            Waiting(T0 + 90, "every agent is rate-limited (claude until 14:05)"),
            RunEnded(0, "every spec verified (3/3)", 1, 1, 20, ROWS, CLAUDE),
        ]
    )
    assert lines[0].endswith("usage: 12.0k in · 3.4k out · $0.42")
    until = time.strftime("%H:%M:%S", time.localtime(T0 + 90))
    assert f"waiting until {until} (1:30 left): every agent is rate-limited" in lines[1]
    assert lines[-1].endswith("usage this run: 12.0k in · 3.4k out · $0.42")


def test_quiet_plain_output_still_shows_the_wait() -> None:
    out = io.StringIO()
    with PlainDisplay(out, quiet=True, clock=lambda: T0) as display:
        display.handle(ended("claude", CLAUDE))
        display.handle(Waiting(T0 + 90, "every agent is rate-limited"))
    lines = out.getvalue().splitlines()
    assert len(lines) == 1 and "waiting until" in lines[0]
