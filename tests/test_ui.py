"""Tests for the displays: the pure panel, plain lines, display choice and `ralph status` output."""

from __future__ import annotations

import io
import re
import subprocess
import sys
import time
from collections.abc import Iterable, Sequence

import pytest
from rich.console import Console, RenderableType

from ralph.rules.prompt import Mode
from ralph.run.events import (
    AgentOutput,
    Event,
    Notice,
    RotationEnded,
    RotationStarted,
    RunEnded,
    RunStarted,
    SpecRow,
)
from ralph.ui.display import make_display
from ralph.ui.live import LiveDisplay
from ralph.ui.panel import render_panel
from ralph.ui.panelview import OUTPUT_LINES, PanelView, apply_event
from ralph.ui.plain import PlainDisplay
from ralph.ui.statustable import render_status_plain, render_status_table
from ralph.ui.text import clean_line

# Noon local time, so the expected `HH:MM:SS` does not depend on the machine's time zone.
NOON = time.mktime((2024, 1, 15, 12, 0, 1, 0, 15, -1))

PROMPT = (SpecRow("PROMPT.md", 0, None, False),)
THREE = (
    SpecRow("PROMPT.md", 3, "DONE", True),
    SpecRow("specs/a.spec.md", 2, "CONTINUE", True),
    SpecRow("specs/b.spec.md", 0, None, False),
)


class TtyStringIO(io.StringIO):
    """A StringIO that claims to be a terminal, to exercise the live path without one."""

    def isatty(self) -> bool:
        return True


class FlushCounter(io.StringIO):
    def __init__(self) -> None:
        super().__init__()
        self.flushes = 0
        self.lines_at_flush: list[int] = []

    def flush(self) -> None:
        self.flushes += 1
        self.lines_at_flush.append(self.getvalue().count("\n"))
        super().flush()


def started(
    spec: str = "PROMPT.md",
    mode: Mode = "IMPLEMENT",
    *,
    iteration: int = 1,
    max_iterations: int = 20,
    started_at: float = 1000.0,
    matrix: tuple[SpecRow, ...] = PROMPT,
) -> RotationStarted:
    return RotationStarted(
        "demo", spec, mode, iteration, iteration, max_iterations, started_at, matrix
    )


def ended(
    spec: str = "PROMPT.md",
    mode: Mode = "IMPLEMENT",
    *,
    iteration: int = 1,
    signal: str = "DONE",
    files_changed: int = 2,
    done_count: int = 1,
    elapsed: float = 3.14,
    note: str | None = None,
    downgraded: tuple[str, ...] = (),
    matrix: tuple[SpecRow, ...] = PROMPT,
) -> RotationEnded:
    return RotationEnded(
        "demo",
        spec,
        mode,
        iteration,
        iteration,
        20,
        signal,
        files_changed,
        done_count,
        elapsed,
        note,
        downgraded,
        matrix,
    )


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


def plain_lines(events: Sequence[Event], *, verbose: bool = False) -> list[str]:
    out = io.StringIO()
    display = PlainDisplay(out, verbose=verbose, clock=lambda: NOON)
    with display:
        for event in events:
            display.handle(event)
    return out.getvalue().splitlines()


# --------------------------------------------------------------------------- panel


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


# --------------------------------------------------------------------------- plain display


def full_run() -> list[Event]:
    after = (SpecRow("PROMPT.md", 1, "DONE", True),)
    return [
        RunStarted("demo", 0, 20, PROMPT),
        started(),
        AgentOutput("stdout", ("working",)),
        ended(matrix=after),
        Notice("warning", "no signal found"),
        RunEnded(1, "max iterations reached", 1, 1, 20, after),
    ]


def test_plain_prints_one_timestamped_line_per_event() -> None:
    assert plain_lines(full_run()) == [
        "12:00:01 run started: agent demo, 1 spec, budget 20 rotations (numbered from 1)",
        "12:00:01 rotation 1/20 [IMPLEMENT] PROMPT.md (demo)",
        "12:00:01 rotation 1 ended: DONE, 2 files changed, PROMPT.md 1/3 (3.1 s)",
        "12:00:01 warning: no signal found",
        "12:00:01 run ended: max iterations reached (exit 1), last rotation 1/20",
        "12:00:01   PROMPT.md 1/3 DONE",
    ]


def test_plain_rotation_line_format() -> None:
    (line,) = plain_lines([started("specs/a.spec.md", "REVIEW", iteration=7, matrix=THREE)])
    assert line == "12:00:01 rotation 7/20 [REVIEW] specs/a.spec.md (demo)"


def test_plain_timestamps_follow_the_clock() -> None:
    ticks = iter([NOON, NOON + 3, NOON + 3661])
    out = io.StringIO()
    display = PlainDisplay(out, clock=lambda: next(ticks))
    for event in [Notice("info", "a"), Notice("info", "b"), Notice("info", "c")]:
        display.handle(event)
    assert out.getvalue().splitlines() == ["12:00:01 a", "12:00:04 b", "13:01:02 c"]


def test_plain_rotation_end_with_downgrades_and_note() -> None:
    (line,) = plain_lines(
        [ended(signal="NONE", files_changed=1, downgraded=("specs/a.spec.md",), note="no signal")]
    )
    assert line == (
        "12:00:01 rotation 1 ended: NONE, 1 file changed, PROMPT.md 1/3 (3.1 s), "
        "downgraded 3/3→2/3: specs/a.spec.md, note: no signal"
    )


def test_plain_long_rotation_reads_as_minutes() -> None:
    (line,) = plain_lines([ended(elapsed=125.0)])
    assert line.endswith("PROMPT.md 1/3 (2:05)")


def test_plain_run_end_aligns_the_matrix() -> None:
    lines = plain_lines([RunEnded(0, "all specs verified", 9, 9, 20, THREE)])
    assert lines == [
        "12:00:01 run ended: all specs verified (exit 0), last rotation 9/20",
        "12:00:01   PROMPT.md       3/3 DONE",
        "12:00:01   specs/a.spec.md 2/3 CONTINUE",
        "12:00:01   specs/b.spec.md 0/3 —",
    ]


def test_plain_hides_agent_output_unless_verbose() -> None:
    assert plain_lines([AgentOutput("stdout", ("hello",))]) == []
    assert plain_lines([AgentOutput("stdout", ("hello",))], verbose=True) == ["12:00:01   | hello"]


def test_plain_never_writes_escape_codes() -> None:
    events: list[Event] = [
        *full_run()[:3],
        AgentOutput(
            "stdout", ("\x1b[1;31mred\x1b[0m and \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\",)
        ),
        AgentOutput("stderr", ("50%\r100%\x07",)),
        Notice("warning", "\x1b[33mcoloured\x1b[0m warning"),
    ]
    lines = plain_lines(events, verbose=True)
    output = "\n".join(lines)
    assert "\x1b" not in output
    assert "\r" not in output
    assert "\x07" not in output
    assert "12:00:01   | red and link" in lines
    assert "12:00:01   | 100%" in lines
    assert "12:00:01 warning: coloured warning" in lines


def test_plain_flushes_after_each_line() -> None:
    out = FlushCounter()
    display = PlainDisplay(out, clock=lambda: NOON)
    for event in full_run():
        display.handle(event)
    assert out.lines_at_flush == [1, 2, 3, 4, 5, 6]


def test_plain_survives_an_ascii_only_stream() -> None:
    raw = io.BytesIO()
    stream = io.TextIOWrapper(raw, encoding="ascii", errors="strict")
    display = PlainDisplay(stream, clock=lambda: NOON)
    display.handle(ended(downgraded=("specs/a.spec.md",)))
    display.close()
    assert b"downgraded 3/3->2/3: specs/a.spec.md" in raw.getvalue()


def test_clean_line() -> None:
    assert clean_line("\x1b[31mred\x1b[0m\tx\x00 ") == "red x"
    assert clean_line("plain") == "plain"


# --------------------------------------------------------------------------- choosing a display


@pytest.fixture
def colour_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")


@pytest.mark.usefixtures("colour_terminal")
def test_make_display_is_plain_for_a_pipe() -> None:
    assert isinstance(make_display(stream=io.StringIO()), PlainDisplay)


@pytest.mark.usefixtures("colour_terminal")
def test_make_display_is_live_on_a_terminal() -> None:
    display = make_display(stream=TtyStringIO())
    assert isinstance(display, LiveDisplay)
    assert display.console.no_color is False


@pytest.mark.usefixtures("colour_terminal")
def test_make_display_plain_when_forced() -> None:
    display = make_display(stream=TtyStringIO(), force_plain=True, verbose=True)
    assert isinstance(display, PlainDisplay)
    assert display.verbose is True


def test_make_display_plain_on_a_dumb_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TERM", "dumb")
    assert isinstance(make_display(stream=TtyStringIO()), PlainDisplay)


@pytest.mark.usefixtures("colour_terminal")
def test_no_color_environment_variable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    display = make_display(stream=TtyStringIO())
    assert isinstance(display, LiveDisplay)
    assert display.console.no_color is True


@pytest.mark.usefixtures("colour_terminal")
def test_empty_no_color_keeps_colour(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("NO_COLOR", "")
    display = make_display(stream=TtyStringIO())
    assert isinstance(display, LiveDisplay)
    assert display.console.no_color is False


@pytest.mark.usefixtures("colour_terminal")
def test_no_color_option() -> None:
    display = make_display(stream=TtyStringIO(), no_color=True)
    assert isinstance(display, LiveDisplay)
    assert display.console.no_color is True


def sgr_colours(output: str) -> list[str]:
    """Colour parameters (30-38, 40-48, 90-107) in the SGR sequences of `output`."""
    found: list[str] = []
    for params in re.findall(r"\x1b\[([0-9;]*)m", output):
        for param in params.split(";"):
            if param and (30 <= int(param) <= 48 or 90 <= int(param) <= 107):
                found.append(param)
    return found


def run_live(stream: io.StringIO, *, no_color: bool) -> LiveDisplay:
    display = make_display(stream=stream, no_color=no_color)
    assert isinstance(display, LiveDisplay)
    with display:
        for event in full_run():
            display.handle(event)
    return display


@pytest.mark.usefixtures("colour_terminal")
def test_live_display_prints_history_and_final_matrix() -> None:
    stream = TtyStringIO()
    run_live(stream, no_color=False)
    raw = stream.getvalue()
    assert sgr_colours(raw)  # colour is on unless asked otherwise
    output = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", raw)
    assert "demo finished" not in output  # exit code 1: the panel says stopped
    assert "demo stopped (exit 1)" in output
    assert "rotation 1/20 [IMPLEMENT] PROMPT.md: DONE · 2 files changed · 1/3" in output
    assert "warning: no signal found" in output
    assert "stopped (exit 1): max iterations reached · last rotation 1/20" in output


@pytest.mark.usefixtures("colour_terminal")
def test_live_display_without_colour() -> None:
    stream = TtyStringIO()
    run_live(stream, no_color=True)
    output = stream.getvalue()
    assert "max iterations reached" in output
    assert sgr_colours(output) == []


@pytest.mark.usefixtures("colour_terminal")
def test_live_display_stops_its_refresh_thread() -> None:
    display = make_display(stream=TtyStringIO())
    assert isinstance(display, LiveDisplay)
    display.handle(RunStarted("demo", 0, 20, PROMPT))
    live = display._live
    assert live is not None
    assert live.is_started
    display.close()
    assert not live.is_started
    display.close()  # closing twice is harmless


# --------------------------------------------------------------------------- `ralph status`


def test_status_table_cells() -> None:
    text = text_of(
        render_status_table(THREE, iteration=7, max_iteration=20, running=True, complete=False)
    )
    lines = text.splitlines()
    assert re.search(r"Spec\s+Counter\s+Last status\s+Modified\s+Needs work", text)
    assert any(re.search(r"PROMPT\.md\s+3/3\s+DONE\s+yes\s+no", line) for line in lines)
    assert any(re.search(r"specs/a\.spec\.md\s+2/3\s+CONTINUE\s+yes\s+yes", line) for line in lines)
    assert any(re.search(r"specs/b\.spec\.md\s+0/3\s+—\s+no\s+yes", line) for line in lines)
    assert "iteration 7 (last run's budget 20) · run live · not complete" in text


def test_status_table_caption_without_run() -> None:
    text = text_of(
        render_status_table(THREE, iteration=3, max_iteration=None, running=False, complete=True)
    )
    assert "iteration 3 · no run · complete" in text


def test_status_plain() -> None:
    text = render_status_plain(THREE, iteration=7, max_iteration=20, running=False, complete=False)
    assert text == (
        "spec             counter  last status  modified files  needs work\n"
        "PROMPT.md        3/3      DONE         yes             no\n"
        "specs/a.spec.md  2/3      CONTINUE     yes             yes\n"
        "specs/b.spec.md  0/3      —            no              yes\n"
        "iteration 7 (last run's budget 20) · no run · not complete\n"
    )


def test_status_plain_without_specs() -> None:
    text = render_status_plain((), iteration=0, max_iteration=20, running=False, complete=False)
    assert "(no specs)" in text.splitlines()


# --------------------------------------------------------------------------- start-up cost


def test_importing_ui_does_not_load_rich() -> None:
    code = (
        "import sys, ralph.ui.display, ralph.ui.live, ralph.ui.panel, ralph.ui.plain, "
        "ralph.ui.jsonlines; "
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'rich'))"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=30
    )
    assert result.stdout.strip() == "[]"
