"""`.ralph/worklog.jsonl`: the append-only record of every transition and decision of a run."""

from __future__ import annotations

import time
from pathlib import Path


def append_worklog(path: Path, event: str, **fields: object) -> None:
    """One JSON object per line, append-only: what happened, when."""
    import json

    record = {"ts": round(time.time(), 3), "event": event, **fields}
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record, default=str) + "\n")
