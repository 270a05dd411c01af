"""ui/panelview.py: what the live panel shows, as an immutable view, and the pure reducer that
folds events in."""

from __future__ import annotations

import io
import re
from collections.abc import Iterable

import pytest
from rich.console import Console, RenderableType

from ralph.rules.counts.state import Tally
from ralph.run.events import (
    AgentOutput,
    Event,
    Notice,
    RunEnded,
    RunStarted,
    SpecRow,
)
from ralph.ui.panel import render_panel
from ralph.ui.panelview import OUTPUT_LINES, PanelView, apply_event
from tests.ui.sample_run import PROMPT, THREE, ended, started
from tests.ui.test_reports import ROW, ended_rotation


def view_of(events: Iterable[Event]) -> PanelView:
    view = PanelView()
    for event in events:
        view = apply_event(view, event)
    return view


def text_of(renderable: RenderableType) -> str:
    console = Console(record=True, width=80, color_system=None, file=io.StringIO())
    console.print(renderable)
    return console.export_text()


def panel_text(events: Iterable[Event], now: float = 1000.0) -> str:
    return text_of(render_panel(view_of(events), now))


def row(text: str, label: str) -> str:
    """The panel line that starts with `label` (inside the border)."""
    for line in text.splitlines():
        if line.strip("│ ").startswith(label):
            return line.strip("│ ")
    raise AssertionError(f"no {label!r} row in:\n{text}")


def test_title_names_the_agent_and_review_mode() -> None:
    text = panel_text([RunStarted("demo", 6, 20, THREE), started("specs/a.spec.md", "REVIEW")])
    assert "demo reviewing…" in text.splitlines()[0]
    assert "implementing" not in text


def test_title_names_implement_mode() -> None:
    text = panel_text([RunStarted("demo", 0, 20, PROMPT), started()])
    assert "demo implementing…" in text.splitlines()[0]
    assert "reviewing" not in text


@pytest.mark.parametrize(
    ("events", "title"),
    [
        ([], "ralph waiting"),
        ([RunStarted("demo", 0, 20, PROMPT)], "demo starting…"),
        ([started(), ended()], "demo idle"),
        ([started(), ended(), RunEnded(0, "all verified", 1, 1, 20, PROMPT)], "demo finished"),
        ([started(), RunEnded(2, "interrupted", 1, 1, 20, PROMPT)], "demo stopped (exit 2)"),
    ],
)
def test_title_follows_the_run(events: list[Event], title: str) -> None:
    assert title in panel_text(events).splitlines()[0]


def test_spec_row_is_shown_for_a_single_prompt() -> None:
    text = panel_text([RunStarted("demo", 0, 20, PROMPT), started()])
    assert row(text, "Spec:") == "Spec:      PROMPT.md"


def test_rows_come_in_order() -> None:
    text = panel_text([started(), ended()])
    labels = [line.strip("│ ").split(":")[0] for line in text.splitlines()]
    wanted = ["Spec", "Iteration", "Specs", "Elapsed", "Last"]
    assert [label for label in labels if label in wanted] == wanted


def test_iteration_row_shows_progress_and_mode() -> None:
    text = panel_text([started("specs/a.spec.md", "REVIEW", iteration=7, matrix=THREE)])
    assert row(text, "Iteration:") == "Iteration: 7/20 [REVIEW]"


def test_matrix_lists_every_spec_with_its_counter() -> None:
    text = panel_text([started("specs/a.spec.md", "REVIEW", matrix=THREE)])
    lines = text.splitlines()

    def line_of(path: str) -> str:
        (found,) = [line for line in lines if f" {path} " in line and "Spec: " not in line]
        return found

    assert re.search(r"PROMPT\.md\s+3/3\s+DONE\s+✓", line_of("PROMPT.md"))
    assert re.search(r"▶ specs/a\.spec\.md\s+2/3\s+CONTINUE", line_of("specs/a.spec.md"))
    assert re.search(r"specs/b\.spec\.md\s+0/3\s+—", line_of("specs/b.spec.md"))
    # Only the verified spec is ticked and only the current one is marked.
    assert text.count("✓") == 1
    assert text.count("▶") == 1


def test_matrix_is_cut_after_twelve_specs_but_keeps_the_current_one() -> None:
    matrix = tuple(SpecRow(f"specs/{i:02d}.spec.md", 1, "DONE", False) for i in range(20))
    text = panel_text([started("specs/17.spec.md", matrix=matrix)])
    assert "specs/11.spec.md" in text
    assert "specs/12.spec.md" not in text
    assert "▶ specs/17.spec.md" in text
    assert "… and 7 more" in text


def test_matrix_shows_no_more_line_when_everything_fits() -> None:
    matrix = tuple(SpecRow(f"specs/{i:02d}.spec.md", 1, "DONE", False) for i in range(12))
    text = panel_text([started("specs/00.spec.md", matrix=matrix)])
    assert "specs/11.spec.md" in text
    assert "more" not in text


def test_elapsed_is_computed_from_now() -> None:
    events = [started(started_at=1000.0)]
    assert row(panel_text(events, now=1065.0), "Elapsed:") == "Elapsed:   1:05"
    assert row(panel_text(events, now=1000.0 + 3725), "Elapsed:") == "Elapsed:   1:02:05"
    # A clock that went backwards never shows a negative time.
    assert row(panel_text(events, now=990.0), "Elapsed:") == "Elapsed:   0:00"


def test_elapsed_freezes_when_the_rotation_ends() -> None:
    events: list[Event] = [started(started_at=1000.0), ended(elapsed=42.0)]
    assert row(panel_text(events, now=5000.0), "Elapsed:") == "Elapsed:   0:42"


def test_last_row_before_any_rotation() -> None:
    assert row(panel_text([RunStarted("demo", 0, 20, PROMPT)]), "Last:") == "Last:      —"


def test_last_row_shows_signal_and_files_changed() -> None:
    text = panel_text([started(), ended(files_changed=3)])
    assert row(text, "Last:") == "Last:      DONE · 3 files changed"


def test_last_row_shows_downgrades_and_note() -> None:
    last = ended(
        signal="NONE",
        files_changed=1,
        downgraded=("specs/a.spec.md", "specs/b.spec.md"),
        note="no signal in output",
    )
    text = panel_text([started(), last])
    assert row(text, "Last:") == (
        "Last:      NONE · 1 file changed · 2 specs 3/3→2/3 · no signal in output"
    )


def test_output_keeps_the_last_lines_without_escape_codes() -> None:
    lines = [AgentOutput("stdout", (f"\x1b[32mline {i:02d}\x1b[0m",)) for i in range(12)]
    text = panel_text([started(), *lines])
    assert "line 11" in text
    assert f"line {12 - OUTPUT_LINES:02d}" in text
    assert f"line {11 - OUTPUT_LINES:02d}" not in text
    assert "\x1b" not in text
    assert "[32m" not in text


def test_output_is_bounded_in_the_view() -> None:
    view = view_of([started(), *(AgentOutput("stdout", (str(i),)) for i in range(50))])
    assert view.output == tuple(str(i) for i in range(50 - OUTPUT_LINES, 50))


def test_a_new_rotation_clears_the_previous_output() -> None:
    view = view_of([started(), AgentOutput("stdout", ("old",)), ended(), started(iteration=2)])
    assert view.output == ()


def test_apply_event_does_not_change_its_input() -> None:
    before = view_of([started()])
    after = apply_event(before, AgentOutput("stdout", ("x",)))
    assert before.output == ()
    assert after.output == ("x",)
    assert apply_event(after, Notice("warning", "careful")) is after


def test_long_lines_stay_within_the_width() -> None:
    text = panel_text(
        [
            started("specs/" + "deep/" * 20 + "x.spec.md", matrix=THREE),
            AgentOutput("stdout", ("y" * 300,)),
        ]
    )
    assert max(len(line) for line in text.splitlines()) <= 80
    assert "deep/" * 5 in text  # the long path folds instead of disappearing


def test_markup_in_agent_text_is_not_interpreted() -> None:
    text = panel_text([started(), AgentOutput("stdout", ("[bold]x[/bold] [link]",))])
    assert "[bold]x[/bold] [link]" in text


def test_the_panel_ends_on_the_runs_own_usage() -> None:
    view = apply_event(PanelView(), ended_rotation(Tally(1, 113_900, 0, 0.1)))
    total = Tally(2, 134_000, 0, 0.2)  # a judge's call the rotations did not carry
    view = apply_event(view, RunEnded(0, "done", 1, 1, 20, ROW, total))
    assert view.run_usage == total
