"""Archiving a verified run: `.ralph/archive/<time>/` keeps its state, progress and worklog;
and a killed run, as the next run takes over: `.ralph/archive/<time>-killed/` keeps its state
and worklog (its progress goes on with the run that continues it).

state.json and worklog.jsonl are copied from ralph's records in its store (the state stays live
for `ralph status`; the worklog is append-only and never truncated); progress.md, errors.log
and the verifier's report are moved, so the next piece of work starts a fresh record.
"""

from __future__ import annotations

import time
from pathlib import Path

from ralph.store.disk import confined, reader
from ralph.store.disk.files import write_text_atomic
from ralph.store.disk.workspace import Workspace

VERIFICATION_REPORT = "handoffs/final-verification.md"


def unique_dir(parent: Path, name: str) -> Path:
    target = parent / name
    n = 1
    while target.exists():
        n += 1
        target = parent / f"{name}-{n}"
    return target


def archive_run(ws: Workspace, now: float | None = None) -> Path:
    """Archive the run that just passed its final verification; returns the folder."""
    target = _records(ws, time.strftime("%Y%m%d-%H%M%S", time.localtime(now)))
    move_files(ws.root, (ws.progress, ws.errors_log, ws.dir / VERIFICATION_REPORT), target)
    return target


def archive_killed(ws: Workspace, now: float | None = None) -> str:
    """Archive the records of a run that was killed, as a run takes the project over (what
    `ralph report --run ID` shows of it); returns its id."""
    return _records(ws, time.strftime("%Y%m%d-%H%M%S-killed", time.localtime(now))).name


def _records(ws: Workspace, name: str) -> Path:
    """A new archive folder `name` with copies of ralph's state and worklog records."""
    target = unique_dir(ws.archive, name)
    confined.makedirs(ws.root, target)
    record = ws.archived / target.name
    record.mkdir(parents=True, exist_ok=True)
    for path in (ws.store / "state.json", ws.worklog):  # ralph's records, not `.ralph/`'s
        try:
            data = reader.read(path, limit=reader.RECORD_LIMIT, tail=True).data  # its end
        except FileNotFoundError:
            continue
        write_text_atomic(record / path.name, data.decode("utf-8", errors="replace"))
        confined.write_atomic(ws.root, target / path.name, data)  # the copy for people
    return target


def move_files(root: Path, paths: tuple[Path, ...], target: Path) -> None:
    """Move each of `paths` that exists into the folder `target`, all inside the project and
    reached without links (a link itself is moved, never followed)."""
    confined.makedirs(root, target)
    for path in paths:
        if confined.lstat(root, path) is not None:
            confined.move(root, path, target / path.name)
