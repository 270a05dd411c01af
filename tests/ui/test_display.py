"""ui/display.py: what the loop talks to (the Display protocol), and which display a run gets."""

from __future__ import annotations

import io

import pytest

from ralph.ui.display import make_display
from ralph.ui.live import LiveDisplay
from ralph.ui.plain import PlainDisplay


class TtyStringIO(io.StringIO):
    """A StringIO that claims to be a terminal, to exercise the live path without one."""

    def isatty(self) -> bool:
        return True


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
