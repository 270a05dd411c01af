"""`.ralph/worklog.jsonl`: the append-only record of every transition and decision of a run.

The one module that knows the file's format: the recorder appends, `history`, `inspect` and
`status --log` read. A line cut short by a crash mid-write is never fatal to a reader.
"""

from __future__ import annotations

import json
import time
from collections import deque
from pathlib import Path
from typing import Any

from ralph.store.files import append_text


def append_worklog(path: Path, event: str, **fields: object) -> None:
    """One JSON object per line, append-only: what happened, when."""
    from ralph.rules.money import rounded_money

    record = rounded_money({"ts": round(time.time(), 3), "event": event, **fields})
    append_text(path, json.dumps(record, default=str) + "\n")


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


def _record(line: str) -> dict[str, Any] | None:
    try:
        rec = json.loads(line)
    except ValueError:
        return None
    return rec if isinstance(rec, dict) else None
