"""When a run was live, as the kernel's change times tell it: what the agent changed in the
project's environments then is never taken into ralph's copy of them
(store/environments/envcopy.py).

A run writes a `began` marker in the store before its agent may act and, at its end, an
`ended` one; the change times (st_ctime) of the two are the span kept in `spans.json`. A
file's change time is set by the kernel to the current time whenever its bytes, name, links
or mode change, and nothing (utime, touch) can set it back: what an agent changed during a run
has a change time inside that run's span, whatever it does. Marker and files are stamped by the
same clock, so the comparison needs no guess at its precision. A run killed before its end
leaves its `began`: the span stays open until the next run that ends closes it (nobody can
tell who changed what in between).
"""

from __future__ import annotations

import bisect
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import StateError
from ralph.store.disk.files import load_json, write_json_atomic

BEGAN = "began"
ENDED = "ended"
SPANS = "spans.json"
FORMAT = 1
OPEN = sys.maxsize  # the end of a span not yet closed


@dataclass(frozen=True)
class Spans:
    """The spans (start, end) of change times, merged and sorted by start."""

    starts: tuple[int, ...] = ()
    ends: tuple[int, ...] = ()

    def live(self, ctime_ns: int) -> bool:
        """Was a run live when this change time was stamped (the bounds included)?"""
        i = bisect.bisect_right(self.starts, ctime_ns) - 1
        return i >= 0 and ctime_ns <= self.ends[i]

    def __bool__(self) -> bool:
        return bool(self.starts)


def load_spans(folder: Path) -> Spans:
    """The spans recorded in `folder`, with the one a killed run left open."""
    pairs = _recorded(folder)
    began = _ctime(folder / BEGAN)
    if began is not None:
        pairs.append((began, OPEN))
    return _merged(pairs)


def record_began(folder: Path) -> None:
    """A run begins (before its agent may act); a span left open by a killed run goes on."""
    if _ctime(folder / BEGAN) is None:
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        (folder / BEGAN).write_text("a ralph run is live\n")


def record_ended(folder: Path) -> None:
    """The run ended (its agent stopped): its span closed and kept."""
    began = _ctime(folder / BEGAN)
    if began is None:  # it never began (stopped before its start)
        return
    marker = folder / ENDED
    marker.unlink(missing_ok=True)  # a new inode: its change time is now
    marker.write_text("")
    ended = os.lstat(marker).st_ctime_ns
    spans = _merged([*_recorded(folder), (began, ended)])
    pairs = [list(p) for p in zip(spans.starts, spans.ends, strict=True)]
    write_json_atomic(folder / SPANS, {"format": FORMAT, "spans": pairs})
    (folder / BEGAN).unlink()


def _recorded(folder: Path) -> list[tuple[int, int]]:
    try:
        data = load_json(folder / SPANS, "the spans when runs were live")
    except StateError as exc:
        raise StateError(
            f"ralph's record of when runs were live ({folder / SPANS}) is damaged",
            f"delete it to take the project's environments as they are now: {exc}",
        ) from exc
    if data is None:
        return []
    spans = data.get("spans") if isinstance(data, dict) else None
    try:
        if not isinstance(data, dict) or data.get("format") != FORMAT:
            raise TypeError
        return [(int(a), int(b)) for a, b in spans or ()]
    except (TypeError, ValueError) as exc:
        raise StateError(
            f"ralph's record of when runs were live ({folder / SPANS}) is not one it reads",
            "delete it to take the project's environments as they are now",
        ) from exc


def _merged(pairs: list[tuple[int, int]]) -> Spans:
    out: list[list[int]] = []
    for start, end in sorted(pairs):
        if out and start <= out[-1][1]:
            out[-1][1] = max(out[-1][1], end)
        else:
            out.append([start, end])
    return Spans(tuple(p[0] for p in out), tuple(p[1] for p in out))


def _ctime(path: Path) -> int | None:
    try:
        return os.lstat(path).st_ctime_ns
    except FileNotFoundError:
        return None
