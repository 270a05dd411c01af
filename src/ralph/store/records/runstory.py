"""What ralph recorded of a run, read for `ralph report --html`: its worklog records (from its
`run_start` on), the state, and a redacted excerpt of each rotation's history log. The run is
the latest that did work (a later run with nothing to do is no news), or an archived one by
its id. All of it from ralph's records in its private store (the worklog, the rotation logs,
the archived worklogs), never from the copies in `.ralph/` an agent can write. Works while the
run is still going: every file is read as it is at that moment.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ralph.errors import RalphError
from ralph.rules.text.redact import redactor
from ralph.store.disk import reader
from ralph.store.disk.files import load_json
from ralph.store.disk.workspace import Workspace
from ralph.store.records.runs import runs as _runs
from ralph.store.records.runs import since_reset
from ralph.store.records.worklog import read_worklog

# An excerpt is the end of a log (where the signal and the verdict are), whole lines, enough
# of them for the agent's adapter to render its last words (ui/story.py bounds what is shown).
EXCERPT_BYTES = 64 << 10


@dataclass(frozen=True)
class RunRecords:
    project: str  # the project folder's name
    records: tuple[dict[str, Any], ...]  # the latest run's worklog records, in order
    state: dict[str, Any] = field(default_factory=dict)  # state.json as it is now
    excerpts: dict[str, str] = field(default_factory=dict)  # log path -> its end, redacted
    job: bool = False  # every run since the last `ralph reset`, not one run


def read_run(
    root: Path, run_id: str | None = None, *, latest: bool = False, job: bool = False
) -> RunRecords:
    """The latest run that did work (or the `latest` run, whatever it did: the run that just
    ended reports itself), or the archived run `run_id`, or with `job` every run since the last
    `ralph reset`; a run continued after a kill is one run with the part that was killed. A
    StateError when there is nothing to report, a UsageError for an unknown id."""
    from ralph.errors import StateError

    ws = Workspace(root)
    worklog = ws.worklog if run_id is None else _archived(ws, run_id)
    records = read_worklog(worklog)
    runs = _runs(since_reset(records) if job else records)
    if not runs:
        raise StateError(
            "no run to report: ralph's worklog records no run"
            + (" since the last ralph reset" if job else ""),
            "start one with ralph run (ralph report works during the run too)",
        )
    worked = [run for run in runs if _worked(run)] if not latest else []
    chosen = tuple(rec for run in runs for rec in run) if job else tuple((worked or runs)[-1])
    try:
        state = load_json(ws.store / "state.json", "ralph's own copy of state.json")
    except RalphError:
        state = None  # a report of the worklog is still worth having
    logs = {rec["log"] for rec in chosen if isinstance(rec.get("log"), str)}
    return RunRecords(
        project=root.resolve().name,
        records=chosen,
        state=state if isinstance(state, dict) else {},
        excerpts={log: text for log in sorted(logs) if (text := _excerpt(ws, log)) is not None},
        job=job,
    )


def archived_runs(root: Path) -> list[str]:
    """The ids of the archived runs (their folders under `.ralph/archive/`, whose worklogs
    ralph keeps in its store's `archive/`), oldest first."""
    ws = Workspace(root)
    try:
        found = [p.name for p in ws.archived.iterdir() if (p / "worklog.jsonl").is_file()]
    except OSError:
        return []
    return sorted(found)


def _archived(ws: Workspace, run_id: str) -> Path:
    from ralph.errors import UsageError

    known = archived_runs(ws.root)
    if run_id not in known:  # a name from the list, never a path to follow
        shown = ", ".join(known[-5:]) if known else "none yet"
        raise UsageError(
            f"no archived run {run_id!r} (archived runs: {shown})",
            "give one of the ids under .ralph/archive/, or no --run for the latest run",
        )
    return ws.archived / run_id / "worklog.jsonl"


def _worked(records: list[dict[str, Any]]) -> bool:
    """Did the run start a rotation or a final verification?"""
    return any(
        rec.get("event") == "rotation_start"
        or (rec.get("event") == "verification" and rec.get("transition") == "started")
        for rec in records
    )


def _excerpt(ws: Workspace, log: str) -> str | None:
    """The end of a rotation's log, redacted: ralph's record of it in the store, whatever
    path the record names (None for a path that is not a history log's)."""
    record = ws.record_of(log)
    if record is None:
        return None
    try:
        got = reader.read(record, limit=EXCERPT_BYTES, root=ws.records, tail=True)
    except (OSError, RalphError):
        return None
    raw = got.data
    # Secrets by their shape (the pool's own values were redacted when the log was written);
    # escape codes are the display's business.
    if got.truncated:  # a line cut at its start could hold a secret cut short: it is dropped
        raw = raw.partition(b"\n")[2]
    return redactor().text(raw.decode("utf-8", "replace"))
