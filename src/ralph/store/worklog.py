"""`.ralph/worklog.jsonl`: the append-only record of every transition and decision of a run.

The one module that knows the file's format: the recorder appends, `history`, `inspect` and
`status --log` read. A line cut short by a crash mid-write is never fatal to a reader.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ralph.store.files import append_text


def append_worklog(path: Path, event: str, **fields: object) -> dict[str, Any]:
    """One JSON object per line, append-only: what happened, when. Returns the record as
    written (as a reader of the line gets it)."""
    from ralph.rules.money import rounded_money

    record = rounded_money({"ts": round(time.time(), 3), "event": event, **fields})
    line = json.dumps(record, default=str)
    append_text(path, line + "\n")
    written: dict[str, Any] = json.loads(line)
    return written


def read_worklog(path: Path) -> list[dict[str, Any]]:
    """Every record; a damaged line is skipped (history and inspect want the records, not gaps)."""
    try:
        text = path.read_bytes().decode("utf-8", "replace")
    except FileNotFoundError:
        return []
    return [rec for line in text.splitlines() if (rec := _record(line)) is not None]


def worklog_tail(path: Path, count: int) -> list[dict[str, Any]]:
    """The last `count` records; a damaged line is shown as such (status --log shows every line)."""
    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            lines = deque((line for line in f if line.strip()), maxlen=count)
    except FileNotFoundError:
        return []
    return [_record(line) or {"event": "(unreadable line)"} for line in lines]


def last_record(
    path: Path, event: str, wanted: Callable[[dict[str, Any]], bool] = lambda rec: True
) -> dict[str, Any] | None:
    """The last `event` record that is `wanted`, read from the end of the file, a block at a
    time (`status` must not read a long worklog whole)."""
    mark = f'"event": {json.dumps(event)}'.encode()
    try:
        with path.open("rb") as f:
            end = f.seek(0, 2)
            tail = b""
            while end > 0:
                start = max(0, end - _BLOCK)
                f.seek(start)
                tail = f.read(end - start) + tail
                end = start
                # whole lines only: the first one may be cut, unless the file starts there
                lines = tail.split(b"\n")
                head, lines = (b"", lines) if start == 0 else (lines[0], lines[1:])
                for line in reversed(lines):
                    rec = _record(line.decode("utf-8", "replace")) if mark in line else None
                    if rec is not None and rec.get("event") == event and wanted(rec):
                        return rec
                tail = head
    except FileNotFoundError:
        return None
    return None


_BLOCK = 256 << 10


def _record(line: str) -> dict[str, Any] | None:
    try:
        rec = json.loads(line)
    except ValueError:
        return None
    return rec if isinstance(rec, dict) else None
