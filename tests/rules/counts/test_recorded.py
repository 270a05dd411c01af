"""rules/counts/recorded.py: a value read back from a record is checked for its kind and range where
it is taken; a damaged or forged one is "unknown", never a crash or an absurd figure."""

from __future__ import annotations

import math

import pytest

from ralph.rules.counts.recorded import (
    LATEST_EPOCH,
    MAX_COUNT,
    MAX_ITEMS,
    MAX_SECONDS,
    MAX_TEXT,
    count,
    epoch,
    money,
    number,
    seconds,
    text,
    texts,
    whole,
)


@pytest.mark.parametrize("forged", [True, math.nan, math.inf, -math.inf, "12", None, [1], 10**400])
def test_what_is_no_number(forged: object) -> None:
    assert number(forged) is None


def test_numbers_as_recorded() -> None:
    assert number(3) == 3.0 and number(-2.5) == -2.5
    assert number(1e16) is None  # no figure a run made


def test_durations_moments_and_prices_keep_to_their_range() -> None:
    assert seconds(1.5) == 1.5 and seconds(MAX_SECONDS) == MAX_SECONDS
    assert seconds(-1) is None and seconds(MAX_SECONDS + 1) is None
    assert epoch(0) == 0.0 and epoch(LATEST_EPOCH) == LATEST_EPOCH
    assert epoch(LATEST_EPOCH + 1) is None and epoch(-1) is None
    assert money(0) == 0.0 and money(0.25) == 0.25 and money(-0.01) is None


def test_counts_are_whole_and_in_range() -> None:
    assert count(7) == 7 and count(MAX_COUNT) == MAX_COUNT
    for forged in (True, -1, MAX_COUNT + 1, 2.0, "3", None):
        assert count(forged) == 0
        assert whole(forged) is None
    assert whole(0) == 0 and whole(12) == 12


def test_texts_are_cut_and_other_kinds_are_no_text() -> None:
    assert text("name") == "name"
    long = text("x" * (MAX_TEXT + 10))
    assert len(long) == MAX_TEXT and long.endswith("…")
    assert text(42) == "42" and text(math.nan) == ""
    for forged in (None, True, ["a"], {"a": 1}):
        assert text(forged) == ""
    assert texts(["a", 1, None, "", "b"]) == ("a", "1", "b")
    assert len(texts(["t"] * (MAX_ITEMS + 5))) == MAX_ITEMS
    assert texts("not a list") == ()
