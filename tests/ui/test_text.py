"""ui/text.py: text the displays share."""

from __future__ import annotations

from ralph.ui.text import clean_line


def test_clean_line() -> None:
    assert clean_line("\x1b[31mred\x1b[0m\tx\x00 ") == "red x"
    assert clean_line("plain") == "plain"
