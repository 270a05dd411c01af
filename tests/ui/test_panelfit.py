"""The live panel fits the terminal: from 60x20 up, with many specs and long paths, the status
rows and the agent's last lines stay visible (no Rich `...`), the matrix collapses to counts
and the current spec's neighbours, paths are shortened from the left; a rotation's line in the
scroll-back stays on one line."""

from __future__ import annotations

import io
import os
import re
import time
from pathlib import Path

import pytest
from rich.console import Console

from ralph.run.events import (
    AgentOutput,
    CancelRequested,
    RotationEnded,
    RotationStarted,
    RunStarted,
    SpecRow,
)
from ralph.store.live.cancel import CancelWatch, request_cancel
from ralph.ui.live import LiveDisplay, print_rotation
from ralph.ui.panel import render_panel
from ralph.ui.panelfit import shorten_left
from ralph.ui.panelview import PanelView, apply_event

LONG = "specs/area{0:02d}/very/long/nested/folder/name/feature-{0:02d}.spec.md"


def view(rows: tuple[SpecRow, ...], current: int, lines: int = 10) -> PanelView:
    spec = rows[current].path
    out = tuple(f"agent line {i} " + "x" * 70 for i in range(lines))
    v = PanelView()
    for event in (
        RunStarted("claude", 0, 20, rows),
        RotationStarted("claude", spec, "REVIEW", 18, 18, 20, 1000.0, rows),
        AgentOutput("stdout", out, spec, 18),
    ):
        v = apply_event(v, event)
    return v


def shown(v: PanelView, width: int, height: int) -> list[str]:
    console = Console(width=width, height=height, file=io.StringIO(), record=True)
    console.print(render_panel(v, 1010.0, (width, height)))
    return console.export_text().splitlines()


def many(n: int) -> tuple[SpecRow, ...]:
    return tuple(SpecRow(LONG.format(i), i % 4, "DONE" if i % 4 else None, False) for i in range(n))


@pytest.mark.parametrize(("width", "height"), [(60, 20), (80, 24), (100, 30), (120, 40)])
@pytest.mark.parametrize("current", [0, 17, 29])
def test_the_panel_fits_and_keeps_status_and_agent_lines(
    width: int, height: int, current: int
) -> None:
    lines = shown(view(many(30), current), width, height)
    text = "\n".join(lines)
    assert len(lines) <= height, text
    assert all(len(line) <= width for line in lines)
    assert "..." not in text  # Rich's sign of rows it had to drop
    for label in ("Spec:", "Iteration:", "Specs:", "Elapsed:", "Last:"):
        assert any(line.startswith(f"│ {label}") for line in lines), (label, text)
    assert "agent line 9" in text  # the agent's last line
    assert f"feature-{current:02d}.spec.md" in text  # the current spec, whole
    assert "▶" in text
    if height < 40:
        assert "30 specs: 7 verified · 15 in progress · 8 to do"[: width - 20] in text


def test_a_small_matrix_is_shown_whole_with_paths_unbroken_at_60_columns() -> None:
    rows = tuple(
        SpecRow(f"specs/some/deeper/folder/{name}.spec.md", 1, "CONTINUE", False)
        for name in ("authentication", "classification", "reporting")
    )
    lines = shown(view(rows, 1, lines=3), 60, 20)
    text = "\n".join(lines)
    for name in ("authentication", "classification", "reporting"):
        assert any(f"{name}.spec.md" in line for line in lines), text  # never broken
    assert "specs:" not in text  # all rows fit: no counts line
    assert "agent line 2" in text and "agent line 0" in text


def test_paths_are_shortened_from_the_left() -> None:
    assert shorten_left("specs/a.spec.md", 40) == "specs/a.spec.md"
    short = shorten_left("specs/area01/very/long/nested/name/feature.spec.md", 24)
    assert short.startswith("…") and short.endswith("/name/feature.spec.md") and len(short) <= 24


def test_a_rotation_line_stays_on_one_line_at_120_columns() -> None:
    path = LONG.format(3)
    event = RotationEnded(
        "claude",
        path,
        "IMPLEMENT",
        12,
        4,
        20,
        "REFUSED",
        14,
        1,
        41.2,
        "DONE refused: test_command: exit code 1, expected 0; " + "details " * 20,
        ("specs/other.spec.md",),
        (SpecRow(path, 1, "REFUSED", True),),
    )
    console = Console(width=120, file=io.StringIO(), record=True)
    print_rotation(console, event)
    lines = console.export_text().splitlines()
    assert len(lines) == 1 and lines[0].startswith("rotation 12 (4/20 this run) [IMPLEMENT] …")
    assert "feature-03.spec.md: REFUSED" in lines[0]


def test_a_pending_cancel_is_shown_on_the_panel(tmp_path: Path) -> None:
    v = view(many(3), 1, lines=2)
    assert "Cancel:" not in "\n".join(shown(v, 80, 24))
    after = apply_event(v, CancelRequested("after"))
    assert "│ Cancel:    stopping after this rotation (ralph cancel)" in "\n".join(
        shown(after, 80, 24)
    )
    assert "stopping now" in "\n".join(shown(apply_event(v, CancelRequested("now")), 80, 24))
    # the run tells its displays as soon as the request is seen, once
    seen: list[str] = []
    with CancelWatch(tmp_path) as watch:
        watch.on_request = seen.append
        request_cancel(tmp_path, os.getpid(), "after")
        deadline = time.monotonic() + 5
        while not seen and time.monotonic() < deadline:
            time.sleep(0.05)
        time.sleep(0.5)  # more polls: still told once
    assert seen == ["after"]


def test_the_panel_comes_back_below_an_answered_question() -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    stream = Tty()
    console = Console(file=stream, width=80, height=24, force_terminal=True)
    display = LiveDisplay(console, clock=lambda: 1000.0)
    rows = many(3)
    display.handle(RunStarted("claude", 0, 20, rows))
    display.handle(RotationStarted("claude", rows[0].path, "IMPLEMENT", 1, 1, 20, 999.0, rows))
    display.close()  # what the run does before it asks (escalation, question)
    stream.write("Circuit breaker open...\nChoose [1/2/3]: 3\n")
    asked = len(stream.getvalue())
    display.handle(AgentOutput("stdout", ("after the answer",), rows[0].path, 1))
    display.close()
    after = stream.getvalue()[asked:]
    # the panel is drawn below the answer: no cursor moved up into the question first
    first_panel = after.index("╭")
    assert not re.search(r"\x1b\[\d*A", after[:first_panel]), repr(after[:first_panel])
    assert "after the answer" in after
