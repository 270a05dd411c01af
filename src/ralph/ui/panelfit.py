"""Fitting the live panel into the terminal (pure): which matrix rows and agent lines fit in
the height left after the status rows, paths shortened from the left to the width. The
panel's blocks (status rows, a block of lane rows, the matrix, the agent's lines) each get
their lines here, so a terminal of 60x20 still shows the status and the agent's last lines
rather than Rich's `...`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ralph.rules.counts.state import MAX_COUNT
from ralph.run.events import SpecRow

BORDER = 2  # the panel's top and bottom lines
MIN_OUTPUT = 2  # agent lines kept however small the terminal
MATRIX_CHROME = 17  # marker, counter, status, tick and the gaps between them


@dataclass(frozen=True)
class Fit:
    """What the panel shows at this size."""

    rows: tuple[SpecRow, ...]  # the matrix rows shown
    summary: str | None  # the counts per state, when rows were left out
    output: tuple[str, ...]  # the agent's last lines shown
    path_width: int | None  # the width spec paths are shortened to; None: no limit


def shorten_left(path: str, width: int | None) -> str:
    """`…/api/users.spec.md`: the end of a path, which names the spec, kept whole where it
    can be; a path that fits is left alone. Control characters show as escapes."""
    from ralph.rules.text.printable import printable

    path = printable(path)
    if width is None or len(path) <= width:
        return path
    if width <= 1:
        return "…"
    tail = path[-(width - 1) :]
    cut = tail.find("/")
    if 0 < cut < len(tail) - 1 and len(tail) - cut >= width // 2:
        tail = tail[cut:]
    return "…" + tail


def counts(matrix: Sequence[SpecRow]) -> str:
    """`12 specs: 5 verified · 4 in progress · 3 to do`."""
    verified = sum(1 for r in matrix if r.done_count >= MAX_COUNT)
    started = sum(1 for r in matrix if 0 < r.done_count < MAX_COUNT)
    todo = len(matrix) - verified - started
    parts = [
        f"{n} {what}"
        for n, what in ((verified, "verified"), (started, "in progress"), (todo, "to do"))
        if n
    ]
    return f"{len(matrix)} specs: " + " · ".join(parts)


def around(matrix: Sequence[SpecRow], current: str | None, room: int) -> tuple[SpecRow, ...]:
    """`room` rows of the matrix: the current spec and its neighbours (the top without one)."""
    if room <= 0:
        return ()
    index = next((i for i, r in enumerate(matrix) if r.path == current), 0)
    start = max(0, min(index - (room - 1) // 2, len(matrix) - room))
    return tuple(matrix[start : start + room])


def fit(
    matrix: Sequence[SpecRow],
    current: str | None,
    output: Sequence[str],
    *,
    fixed: int,
    size: tuple[int, int] | None,
    limit: int,
) -> Fit:
    """The rows and lines that fit a `size` (width, height) terminal when `fixed` lines go to
    the status rows (and any other block above the matrix); no size: at most `limit` rows."""
    out = tuple(output)
    if size is None:
        rows = tuple(matrix[:limit])
        if current is not None and all(r.path != current for r in rows):
            rows = (*rows, *(r for r in matrix if r.path == current))
        hidden = len(matrix) - len(rows)
        return Fit(rows, f"… and {hidden} more" if hidden > 0 else None, out, None)
    width, height = size
    path_width = max(8, width - 4 - 11 - MATRIX_CHROME)
    room = height - BORDER - fixed
    gap = 1 if out else 0  # the blank line above the agent's lines
    if len(matrix) + gap + len(out) <= room:
        return Fit(tuple(matrix), None, out, path_width)
    out = out[-min(len(out), MIN_OUTPUT) :] if out else ()
    gap = 1 if out else 0
    spare = room - gap - len(out)
    if len(matrix) <= spare:  # the whole matrix, and the agent lines that still fit
        keep = max(len(out), room - gap - len(matrix))
        return Fit(tuple(matrix), None, tuple(output)[-keep:] if keep else (), path_width)
    shown = around(matrix, current, spare - 1)  # one line for the counts
    return Fit(shown, counts(matrix), out, path_width)
