"""`ralph history`: past rotations from `.ralph/worklog.jsonl`, and one rotation's log.

Parsing and rendering are pure (records in, rows and text out); reading files is at the edges.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.errors import RalphError
from ralph.rules.spec import spec_slug
from ralph.store.workspace import Workspace


class HistoryError(RalphError):
    """No such rotation, or no history yet."""


@dataclass(frozen=True)
class Rotation:
    number: int
    spec: str
    agent: str | None
    mode: str | None
    started_at: float | None
    signal: str | None  # None: the rotation has no recorded end (running, or ralph was killed)
    files_changed: int | None
    duration: float | None
    cost_usd: float | None
    done_count: int | None
    note: str | None
    log: str | None  # history log, relative to the project root, when recorded


def _cost(record: dict[str, Any]) -> float | None:
    cost = record.get("cost_usd")
    usage = record.get("usage")
    if cost is None and isinstance(usage, dict):
        cost = usage.get("cost_usd")
    return float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def rotations_from_worklog(records: list[dict[str, Any]]) -> list[Rotation]:
    """Pair each rotation_start with its rotation_end, in the order they happened."""
    found: list[Rotation] = []
    open_: dict[tuple[int, str], int] = {}  # (number, spec) -> index in `found`
    for rec in records:
        event = rec.get("event")
        number, spec = rec.get("iteration"), rec.get("spec")
        if not isinstance(number, int) or not isinstance(spec, str):
            continue
        if event == "rotation_start":
            open_[(number, spec)] = len(found)
            found.append(
                Rotation(
                    number=number,
                    spec=spec,
                    agent=rec.get("agent"),
                    mode=rec.get("mode"),
                    started_at=_num(rec.get("ts")),
                    signal=None,
                    files_changed=None,
                    duration=None,
                    cost_usd=None,
                    done_count=None,
                    note=None,
                    log=None,
                )
            )
        elif event == "rotation_end":
            i = open_.pop((number, spec), None)
            start = found[i] if i is not None else None
            started = start.started_at if start else None
            ended = _num(rec.get("ts"))
            duration = ended - started if ended is not None and started is not None else None
            if duration is None:
                duration = _num(rec.get("agent_s"))
            files = rec.get("files_changed")
            done = rec.get("done_count")
            row = Rotation(
                number=number,
                spec=spec,
                agent=start.agent if start else rec.get("agent"),
                mode=start.mode if start else rec.get("mode"),
                started_at=started,
                signal=str(rec.get("signal")) if rec.get("signal") is not None else None,
                files_changed=files if isinstance(files, int) else None,
                duration=duration,
                cost_usd=_cost(rec),
                done_count=done if isinstance(done, int) else None,
                note=rec.get("note") if isinstance(rec.get("note"), str) else None,
                log=rec.get("log") if isinstance(rec.get("log"), str) else None,
            )
            if i is None:
                found.append(row)
            else:
                found[i] = row
    return found


def read_worklog(path: Path) -> list[dict[str, Any]]:
    """The worklog's records; a damaged line (a crash mid-write) is skipped, not fatal."""
    try:
        text = path.read_bytes().decode("utf-8", "replace")
    except FileNotFoundError:
        return []
    records = []
    for line in text.splitlines():
        try:
            rec = json.loads(line)
        except ValueError:
            continue
        if isinstance(rec, dict):
            records.append(rec)
    return records


def _seconds(value: float | None) -> str:
    if value is None:
        return "-"
    if value < 60:
        return f"{value:.1f} s"
    total = int(value)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def _when(epoch: float | None) -> str:
    import time

    return "-" if epoch is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))


def render_table(rows: list[Rotation]) -> str:
    """Aligned columns, one rotation per line."""
    header = ("#", "started", "spec", "agent", "mode", "signal", "files", "duration", "cost")
    cells = [header]
    for r in rows:
        cells.append(
            (
                str(r.number),
                _when(r.started_at),
                r.spec,
                r.agent or "-",
                r.mode or "-",
                r.signal or "(no end)",
                "-" if r.files_changed is None else str(r.files_changed),
                _seconds(r.duration),
                "-" if r.cost_usd is None else f"${r.cost_usd:.2f}",
            )
        )
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    right = {0, 6, 7, 8}  # numbers read better aligned right
    out = []
    for line in cells:
        parts = [
            cell.rjust(w) if i in right else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(line, widths, strict=True))
        ]
        out.append("  ".join(parts).rstrip())
    return "\n".join(out) + "\n"


def rotation_data(r: Rotation) -> dict[str, Any]:
    return {
        "number": r.number,
        "spec": r.spec,
        "agent": r.agent,
        "mode": r.mode,
        "started_at": r.started_at,
        "signal": r.signal,
        "files_changed": r.files_changed,
        "duration": None if r.duration is None else round(r.duration, 3),
        "cost_usd": r.cost_usd,
        "done_count": r.done_count,
        "note": r.note,
        "log": r.log,
    }


def list_rotations(root: Path, spec: str | None) -> list[Rotation]:
    ws = Workspace(root)
    ws.check()
    rows = rotations_from_worklog(read_worklog(ws.worklog))
    if spec is not None:
        wanted = normalise_spec(root, spec)
        rows = [r for r in rows if r.spec == wanted]
    return rows


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
    if row is not None and row.log:
        candidates.append(root / row.log)
    if row is not None:
        folder = ws.history / spec_slug(row.spec)
        candidates += sorted(folder.glob(f"{number:03d}*.log"), key=_mtime, reverse=True)
    # A worklog lost or cleared: any spec's log with that number, the newest first.
    candidates += sorted(ws.history.glob(f"*/{number:03d}*.log"), key=_mtime, reverse=True)
    for path in candidates:
        if path.is_file():
            return row, path
    raise HistoryError(
        f"no log for rotation {number} in {ws.rel(ws.history)}/",
        "ralph history lists the rotations that have one (ralph reset --history deletes them)",
    )


def _mtime(path: Path) -> float:
    try:
        return path.stat().st_mtime
    except OSError:
        return 0.0


def log_text(path: Path, tail: int | None) -> str:
    """A history log made readable (escape codes removed); its last `tail` lines if asked."""
    from ralph.ui.text import clean_line

    lines = path.read_bytes().decode("utf-8", "replace").split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if tail is not None:
        lines = lines[-tail:] if tail > 0 else []
    return "".join(clean_line(line) + "\n" for line in lines)
