"""The worklog: the append-only record of every transition and decision of a run.

The record is in ralph's private store (`<store>/worklog.jsonl`, store/disk/private.py), out of the
agent's reach; `.ralph/worklog.jsonl` is a copy written line for line for people and scripts,
never read back. The one module that knows the format: the recorder appends, `history`,
`inspect`, `status --log` and `report` read. A line cut short by a crash mid-write, or one that
is not strict JSON (store/disk/reader.py), is never fatal to a reader.
"""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from ralph.store.disk import reader
from ralph.store.disk.files import append_text

WORKLOG_FILE = "worklog.jsonl"
# What a reader takes of a worklog that has grown past it: its end (the latest runs).
READ_LIMIT = reader.RECORD_LIMIT
TAIL_LIMIT = 4 * 1024 * 1024  # `status --log N`: the last lines are in the last few MB


def append_worklog(paths: Sequence[Path], event: str, /, **fields: object) -> dict[str, Any]:
    """One JSON object per line, append-only: what happened, when. `paths[0]` is the record
    (the store's); the others are copies for people, written after it. Returns the record as
    written (as a reader of the line gets it)."""
    from ralph.rules.agents.money import rounded_money

    record = rounded_money({"ts": round(time.time(), 3), "event": event, **fields})
    line = json.dumps(record, default=str)
    for path in paths:
        append_text(path, line + "\n")
    written: dict[str, Any] = json.loads(line)
    return written


def read_worklog(path: Path) -> list[dict[str, Any]]:
    """Every record (of the last READ_LIMIT bytes); a damaged line is skipped (history and
    inspect want the records, not gaps)."""
    lines = _lines(path, READ_LIMIT)
    return [rec for line in lines if (rec := _record(line)) is not None]


def worklog_tail(path: Path, count: int) -> list[dict[str, Any]]:
    """The last `count` records; a damaged line is shown as such (status --log shows every line)."""
    lines = [line for line in _lines(path, TAIL_LIMIT) if line.strip()][-count:] if count else []
    return [_record(line) or {"event": "(unreadable line)"} for line in lines]


# what a run that started and has no `run_end` is said to have done: it was killed
KILLED = "ended without a record (killed?)"


def last_run(path: Path) -> list[dict[str, Any]]:
    """The records of the last run, from its `run_start` (of the last TAIL_LIMIT bytes; none
    when no run started there)."""
    lines, mark = _lines(path, TAIL_LIMIT), '"event": "run_start"'
    for start in range(len(lines) - 1, -1, -1):  # only the last run's lines are parsed
        rec = _record(lines[start]) if mark in lines[start] else None
        if rec is not None and rec.get("event") == "run_start":  # not a line cut short
            return [rec for line in lines[start:] if (rec := _record(line)) is not None]
    return []


def _lines(path: Path, limit: int) -> list[str]:
    try:
        got = reader.read(path, limit=limit, tail=True)
    except FileNotFoundError:
        return []
    lines = got.text().splitlines()
    return lines[1:] if got.truncated else lines  # the first line was cut at its start


def last_record(
    path: Path, event: str, wanted: Callable[[dict[str, Any]], bool] = lambda rec: True
) -> dict[str, Any] | None:
    """The last `event` record that is `wanted`, read from the end of the file, a block at a
    time (`status` must not read a long worklog whole), READ_LIMIT bytes at most."""
    mark = f'"event": {json.dumps(event)}'.encode()
    try:
        with reader.open_file(path) as f:
            end = f.seek(0, 2)
            floor = max(0, end - READ_LIMIT)
            tail = b""
            while end > floor:
                start = max(floor, end - _BLOCK)
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
        rec = reader.loads(line)
    except ValueError:
        return None
    return rec if isinstance(rec, dict) else None
