"""The report files ralph wrote in the project (`reports.json` in ralph's private store: each
one's path and the hash of what ralph wrote), so that they never count as the user's uncommitted
work (`--parallel` needs a clean tree) nor as a change in the project, whatever options a later
run is given. In the store, not in `.ralph/`: a record the agent could forge there would hide a
file it changed from the next run's comparison with the last one.

Keyed on what ralph wrote, not on option names: a file still holding ralph's bytes is ralph's;
once a person (or an agent) changes it, it is theirs and counts like any other file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable
from pathlib import Path

from ralph.errors import RalphError, StateError
from ralph.store.disk import reader
from ralph.store.disk.files import load_json, write_json_atomic
from ralph.store.disk.workspace import STATE_DIR

REPORTS_FILE = "reports.json"
MAX_REPORTS = 50  # the most recent ones are kept: a record that never stops growing is a leak


def record_reports(root: Path, written: Iterable[Path]) -> None:
    """After a run wrote its reports: those that are regular files inside the project, with
    the hash of their content. Nothing when the project has no `.ralph/` (a refused run)."""
    folder = root / STATE_DIR
    if not folder.is_dir():
        return
    before = _load(root)
    found = dict(before)
    for path in written:
        rel = _inside(root, path)
        digest = _digest(path) if rel is not None else None
        if rel is not None and digest is not None:
            found.pop(rel, None)
            found[rel] = digest  # last written last
    kept = dict(list(found.items())[-MAX_REPORTS:])
    if list(kept.items()) == list(before.items()):
        return  # nothing new (a run without reports writes nothing)
    write_json_atomic(_record(root), {"schema_version": 1, "reports": kept})


def own_reports(root: Path) -> tuple[str, ...]:
    """The recorded reports (relative, forward slashes) that still hold what ralph wrote."""
    return tuple(rel for rel, digest in _load(root).items() if _digest(root / rel) == digest)


def _load(root: Path) -> dict[str, str]:
    from ralph.store.disk.workspace import Workspace

    Workspace(root).check()  # a `.ralph` that is a link: said as such, before any file in it
    try:
        data = load_json(_record(root), REPORTS_FILE)
    except StateError:  # unreadable: start again (a report then counts as a file once)
        return {}
    reports = data.get("reports") if isinstance(data, dict) else None
    if not isinstance(reports, dict):
        return {}
    return {str(k): str(v) for k, v in reports.items() if isinstance(v, str)}


def _record(root: Path) -> Path:
    from ralph.store.disk.private import ensure_store

    return ensure_store(root) / REPORTS_FILE


def _inside(root: Path, path: Path) -> str | None:
    try:
        rel = path.resolve().relative_to(root.resolve())
    except (ValueError, OSError):
        return None  # outside the project: no snapshot or status sees it
    return rel.as_posix() if rel.parts and rel.parts[0] != STATE_DIR else None


def _digest(path: Path) -> str | None:
    try:  # the one reader: a link, a pipe or a device is not ralph's report
        data = reader.read_bytes(path, limit=reader.REPORT_LIMIT, root=path.parent)
        return hashlib.sha256(data).hexdigest()
    except (OSError, RalphError):
        return None
