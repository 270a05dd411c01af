"""What ralph recorded of the latest run, read for `ralph report --html`: its worklog records
(from the last `run_start` on), the state, and a redacted excerpt of each rotation's log; all
from ralph's records in its private store, never from the copies in `.ralph/` an agent can
write. Works while the run is still going: every file is read as it is at that moment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ralph.errors import RalphError
from ralph.rules.redact import redactor
from ralph.store import reader
from ralph.store.files import load_json
from ralph.store.worklog import read_worklog
from ralph.store.workspace import Workspace

# An excerpt is the end of a log (where the signal and the verdict are): bounded so that a
# 100-rotation report stays well under 2 MB whatever the agents printed.
EXCERPT_LINES = 40
EXCERPT_LINE_CHARS = 240
EXCERPT_BYTES = 6000


@dataclass(frozen=True)
class RunRecords:
    project: str  # the project folder's name
    records: tuple[dict[str, Any], ...]  # the latest run's worklog records, in order
    state: dict[str, Any] = field(default_factory=dict)  # state.json as it is now
    excerpts: dict[str, str] = field(default_factory=dict)  # log path -> its end, redacted


def read_run(root: Path) -> RunRecords:
    """The latest run as recorded; a StateError when there is nothing to report."""
    from ralph.errors import StateError

    ws = Workspace(root)
    records = read_worklog(ws.worklog)
    starts = [n for n, rec in enumerate(records) if rec.get("event") == "run_start"]
    if not starts:
        raise StateError(
            "no run to report: ralph's worklog records no run",
            "start one with ralph run (ralph report works during the run too)",
        )
    latest = tuple(records[starts[-1] :])
    try:
        state = load_json(ws.store / "state.json", "ralph's own copy of state.json")
    except RalphError:
        state = None  # a report of the worklog is still worth having
    logs = {rec["log"] for rec in latest if isinstance(rec.get("log"), str)}
    return RunRecords(
        project=root.resolve().name,
        records=latest,
        state=state if isinstance(state, dict) else {},
        excerpts={log: text for log in sorted(logs) if (text := _excerpt(ws, log)) is not None},
    )


def _excerpt(ws: Workspace, log: str) -> str | None:
    """The end of a rotation's log, redacted: ralph's record of it in the store, whatever
    path the record names (None for a path that is not a history log's)."""
    record = ws.record_of(log)
    if record is None:
        return None
    try:
        got = reader.read(record, limit=4 * EXCERPT_BYTES, root=ws.records, tail=True)
    except (OSError, RalphError):
        return None
    raw = got.data
    # Secrets by their shape (the pool's own values were redacted when the log was written);
    # escape codes are the display's business.
    if got.truncated:  # a line cut at its start could hold a secret cut short: it is dropped
        raw = raw.partition(b"\n")[2]
    text = redactor().text(raw.decode("utf-8", "replace"))
    lines = [line[:EXCERPT_LINE_CHARS] for line in text.splitlines()[-EXCERPT_LINES:]]
    return "\n".join(lines)[-EXCERPT_BYTES:]
