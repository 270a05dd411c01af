"""`ralph history`: past rotations from ralph's worklog, and one rotation's log: both read from
ralph's records in its private store (store/records/worklog.py, store/records/rotationlog.py),
never from the
copies in `.ralph/`, which the agent can write."""

from __future__ import annotations

import json
from pathlib import Path

from ralph.commands.rotations import (
    Rotation,
    render_table,
    rotation_data,
    rotations_from_worklog,
)
from ralph.errors import RalphError, UsageError
from ralph.rules.counts.spec import spec_slug
from ralph.rules.text.printable import printable
from ralph.store.disk.workspace import Workspace
from ralph.store.records.worklog import read_worklog


class HistoryError(RalphError):
    """No such rotation, or no history yet."""


def history(
    root: Path,
    *,
    rotation: int | None,
    spec: str | None,
    tail: int | None,
    as_json: bool,
    pager: bool,
) -> None:
    """The list of rotations (of `spec`), or one rotation's log (its last `tail` lines)."""
    if rotation is not None:
        row, path = find_log(root, rotation)
        _page(log_text(path, tail, row.agent if row else None), pager=pager)
        return
    rows, wanted = list_rotations(root, spec)
    if as_json:
        from ralph.schemas.catalog import SCHEMA_VERSION

        rotations = [rotation_data(r) for r in rows]
        print(json.dumps({"schema_version": SCHEMA_VERSION, "rotations": rotations}))
    elif not rows:
        where = f" of {printable(wanted)}" if wanted else ""
        print(f"no rotations{where} recorded yet")
    else:
        _page(render_table(rows), pager=pager)


def _page(text: str, *, pager: bool) -> None:
    """Long output goes through a pager on a terminal (never in a pipe, CI or tests)."""
    import os
    import shutil
    import sys

    from ralph.ui.terminal import ci_environment, is_terminal

    rows = shutil.get_terminal_size().lines
    if pager and is_terminal(sys.stdout) and not ci_environment() and text.count("\n") >= rows:
        import pydoc

        os.environ.setdefault("LESS", "FRX")  # quit if one screen, keep colours, no clearing
        pydoc.pager(text)
        return
    sys.stdout.write(text)


def list_rotations(root: Path, spec: str | None) -> tuple[list[Rotation], str | None]:
    """The recorded rotations (of the spec `spec` names), and that spec's path."""
    ws = Workspace(root)
    ws.check()
    rows = rotations_from_worklog(read_worklog(ws.worklog))
    if spec is None:
        return rows, None
    wanted = pick_spec(normalise_spec(root, spec), [r.spec for r in rows])
    return [r for r in rows if r.spec == wanted], wanted


def pick_spec(query: str, known: list[str]) -> str:
    """The spec an unambiguous part of its path names (`classify` for
    `specs/classify.spec.md`); the query itself when no recorded spec matches."""
    from ralph.rules.text.names import matching

    found = matching(query, known)
    if len(found) > 1:
        shown = ", ".join(found[:5]) + (f" and {len(found) - 5} more" if len(found) > 5 else "")
        raise UsageError(
            f"--spec {query} matches {len(found)} specs: {shown}",
            "give more of the path, for example --spec " + found[0],
        )
    return found[0] if found else query


def normalise_spec(root: Path, spec: str) -> str:
    """`./specs/a.spec.md`, an absolute path, or a backslashed one: as the worklog names it."""
    path = Path(spec)
    if path.is_absolute():
        try:
            path = path.resolve().relative_to(root.resolve())
        except ValueError:
            return path.as_posix()
    return path.as_posix().replace("\\", "/").removeprefix("./")


def find_log(root: Path, number: int) -> tuple[Rotation | None, Path]:
    """The most recent rotation numbered `number` and its history log."""
    ws = Workspace(root)
    ws.check()
    rows = [r for r in rotations_from_worklog(read_worklog(ws.worklog)) if r.number == number]
    row = rows[-1] if rows else None
    candidates: list[Path] = []
    if row is not None and row.log and (record := ws.record_of(row.log)) is not None:
        candidates.append(record)
    if row is not None:
        folder = ws.records / spec_slug(row.spec)
        candidates += sorted(folder.glob(f"{number:03d}*.log"), key=_mtime, reverse=True)
    # A worklog lost or cleared: any spec's log with that number, the newest first.
    candidates += sorted(ws.records.glob(f"*/{number:03d}*.log"), key=_mtime, reverse=True)
    for path in candidates:
        if path.is_file() and not path.is_symlink():
            return row, path
    raise HistoryError(
        f"no log for rotation {number} in ralph's records ({ws.records})",
        "ralph history lists the rotations that have one (ralph reset --history deletes them)",
    )


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def log_text(path: Path, tail: int | None, agent: str | None = None) -> str:
    """A history log made readable: read by the adapter of the agent that printed it (Claude's
    stream-json becomes its text, as current.log showed it), escape codes removed; its last
    `tail` lines if asked."""
    from ralph.agents.replay import agent_of, readable
    from ralph.store.disk import reader
    from ralph.ui.text import clean_line

    got = reader.read(path, limit=reader.LOG_LIMIT, tail=True)  # its end, where the verdict is
    lines = got.text().split("\n")
    if got.truncated:  # the first line was cut at its start
        lines[0] = f"[the start of this log is not shown: only its last {reader.LOG_LIMIT:,} bytes]"
    if lines and lines[-1] == "":
        lines.pop()
    lines = readable(agent or agent_of(lines), lines)
    if tail is not None:
        lines = lines[-tail:] if tail > 0 else []
    return "".join(clean_line(line) + "\n" for line in lines)
