"""ui/live.py: the live panel a terminal gets: the history printed above it, the final
matrix at the end, colour only when wanted, and its refresh thread stopped."""

from __future__ import annotations

import io
import re

import pytest

from ralph.run.events import (
    RunStarted,
)
from ralph.ui.display import make_display
from ralph.ui.live import LiveDisplay
from tests.ui.sample_run import PROMPT, full_run


class TtyStringIO(io.StringIO):
    """A StringIO that claims to be a terminal, to exercise the live path without one."""

    def isatty(self) -> bool:
        return True


@pytest.fixture
def colour_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    monkeypatch.setenv("TERM", "xterm-256color")


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
