"""Values taken from a record ralph reads back to report (a worklog line, a state row): each
one checked for its kind and range where it is taken. A damaged or forged record then gives
"unknown" (None, 0, empty), never a crash, an infinite or out-of-range number, nor a page-long
name: whatever wrote the record, the report, the history and their JSON stay what they are."""

from __future__ import annotations

import math

MAX_TEXT = 500  # characters of one name, note or reason (longer is cut, with an ellipsis)
MAX_ITEMS = 50  # entries of one list (files changed, reasons)
MAX_COUNT = 10**12  # a token count or a file count beyond this is no count a run made
MAX_SECONDS = 10**8  # about three years: longer is no duration a run measured
LATEST_EPOCH = 253_402_300_799.0  # 9999-12-31: every platform's clock formats up to it


def number(value: object) -> float | None:
    """A finite number of reasonable size, or None (a bool, NaN, infinity, text are not)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        found = float(value)
    except OverflowError:  # an integer too large for a float
        return None
    return found if math.isfinite(found) and abs(found) < 1e15 else None


def seconds(value: object) -> float | None:
    """A duration: 0 up to `MAX_SECONDS`, or None."""
    found = number(value)
    return found if found is not None and 0.0 <= found <= MAX_SECONDS else None


def epoch(value: object) -> float | None:
    """A moment in epoch seconds that any clock can show (1970 to 9999), or None."""
    found = number(value)
    return found if found is not None and 0.0 <= found <= LATEST_EPOCH else None


def money(value: object) -> float | None:
    """A price in dollars: 0 or more, or None."""
    found = number(value)
    return found if found is not None and found >= 0.0 else None


def count(value: object) -> int:
    """A whole count from 0 to `MAX_COUNT`; anything else counts as 0."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT
    return value if ok else 0  # type: ignore[return-value]


def whole(value: object) -> int | None:
    """A whole number from 0 to `MAX_COUNT` (a rotation's number, a counter), or None."""
    ok = isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_COUNT
    return value if ok else None  # type: ignore[return-value]


def text(value: object, limit: int = MAX_TEXT) -> str:
    """A string as recorded, cut at `limit` characters; a number as its digits; anything else
    (a list, an object, null) is no text."""
    if isinstance(value, bool) or value is None:
        return ""
    if isinstance(value, (int, float)):
        found = number(value)
        return "" if found is None else str(value)
    if not isinstance(value, str):
        return ""
    return value if len(value) <= limit else value[: limit - 1] + "…"


def texts(value: object, limit: int = MAX_ITEMS) -> tuple[str, ...]:
    """A list of strings as recorded (its first `limit`); anything else is none."""
    if not isinstance(value, list):
        return ()
    return tuple(found for v in value[:limit] if (found := text(v)))
