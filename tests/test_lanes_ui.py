"""The panel's lanes: one row per lane at work (spec, agent, mode, rotation, elapsed, counter)
above the matrix, and no lanes row in a run that never ran two rotations side by side."""

from __future__ import annotations

import io

from rich.console import Console

from ralph.run.events import Event, RotationEnded, RotationStarted, RunStarted, SpecRow
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
