"""ui/closing.py: leaving a display's `with` block closes it, however the block ends."""

from __future__ import annotations

import pytest

from ralph.ui.closing import Closing


class Display(Closing):
    def __init__(self) -> None:
        self.closed = 0

    def close(self) -> None:
        self.closed += 1


def test_the_block_ends_and_the_display_is_closed_once() -> None:
    with Display() as display:
        assert display.closed == 0  # the block gets the display itself, still open
    assert display.closed == 1


def test_an_error_in_the_block_closes_it_and_is_not_swallowed() -> None:
    display = Display()
    with pytest.raises(RuntimeError), display:
        raise RuntimeError("boom")
    assert display.closed == 1
