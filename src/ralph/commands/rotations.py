"""Past rotations as the worklog tells them: one row per rotation, read from the worklog's
records, and shown as a table or as JSON. Pure but for reading the worklog."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ralph.rules.agents.money import dollars
from ralph.rules.counts import recorded
from ralph.rules.counts.verification import ALL_SPECS
from ralph.ui.text import format_seconds, format_when, printable


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
    checks: float | None = None  # seconds of ralph's checks (the DONE gate, a verification's)
    lane: str | None = None  # the lane it ran in (`--parallel`); None: the project's own tree


def _cost(record: dict[str, Any]) -> float | None:
    cost = record.get("cost_usd")
    usage = record.get("usage")
    if cost is None and isinstance(usage, dict):
        cost = usage.get("cost_usd")
    return recorded.money(cost)


def _name(value: object) -> str | None:
    return recorded.text(value) or None


def _verification(rec: dict[str, Any]) -> dict[str, Any] | None:
    """A final verification's worklog record as a rotation's start or end record."""
    transition = rec.get("transition")
    if transition == "started":
        return {**rec, "event": "rotation_start", "spec": ALL_SPECS, "mode": "VERIFY"}
    if transition in ("passed", "failed"):
        reasons = rec.get("reasons")
        note = "; ".join(map(str, reasons)) if isinstance(reasons, list) and reasons else None
        signal = "VERIFY_PASS" if transition == "passed" else "VERIFY_FAIL"
        return {**rec, "event": "rotation_end", "spec": ALL_SPECS, "signal": signal, "note": note}
    return None  # "answered": the verifier's tag, before ralph's own checks


def rotations_from_worklog(records: list[dict[str, Any]]) -> list[Rotation]:
    """Pair each rotation_start with its rotation_end, in the order of their numbers; a final
    verification is a rotation too (mode VERIFY, spec "(all specs)")."""
    found: list[Rotation] = []
    open_: dict[tuple[int, str], int] = {}  # (number, spec) -> index in `found`
    for raw in records:
        rec = (_verification(raw) or raw) if raw.get("event") == "verification" else raw
        event = rec.get("event")
        number, spec = recorded.whole(rec.get("iteration")), recorded.text(rec.get("spec"))
        if number is None or not spec:
            continue
        if event == "rotation_start":
            open_[(number, spec)] = len(found)
            found.append(
                Rotation(
                    number=number,
                    spec=spec,
                    agent=_name(rec.get("agent")),
                    mode=_name(rec.get("mode")),
                    started_at=recorded.epoch(rec.get("ts")),
                    signal=None,
                    files_changed=None,
                    duration=None,
                    cost_usd=None,
                    done_count=None,
                    note=None,
                    log=None,
                    lane=_name(rec.get("lane")),
                )
            )
        elif event == "rotation_end":
            i = open_.pop((number, spec), None)
            start = found[i] if i is not None else None
            started = start.started_at if start else None
            ended = recorded.epoch(rec.get("ts"))
            duration = ended - started if ended is not None and started is not None else None
            if duration is None or duration < 0:
                duration = recorded.seconds(rec.get("seconds")) or recorded.seconds(
                    rec.get("agent_s")
                )
            files = rec.get("files_changed")
            done = rec.get("done_count")
            row = Rotation(
                number=number,
                spec=spec,
                agent=start.agent if start else _name(rec.get("agent")),
                mode=start.mode if start else _name(rec.get("mode")),
                started_at=started,
                signal=_name(rec.get("signal")),
                files_changed=recorded.whole(files),
                duration=duration,
                cost_usd=_cost(rec),
                done_count=recorded.whole(done),
                note=_name(rec.get("note")),
                log=_name(rec.get("log")),
                checks=recorded.seconds(rec.get("checks_s")),
                lane=start.lane if start else None,
            )
            if i is None:
                found.append(row)
            else:
                found[i] = row
    # by number: lanes start their rotations in whatever order their threads reach the agent
    return sorted(found, key=lambda r: r.number)


def _seconds(value: float | None) -> str:
    return "-" if value is None else format_seconds(value)


def _when(epoch: float | None) -> str:
    return "-" if epoch is None else format_when(epoch)


def render_table(rows: list[Rotation]) -> str:
    """Aligned columns, one rotation per line; a lane column when a rotation ran in one."""
    lanes = any(r.lane for r in rows)
    header = (
        "#",
        "started",
        "spec",
        *(("lane",) if lanes else ()),
        "agent",
        "mode",
        "signal",
        "files",
        "duration",
        "checks",
        "cost",
    )
    cells = [header]
    for r in rows:
        cells.append(
            (
                str(r.number),
                _when(r.started_at),
                printable(r.spec),
                *((printable(r.lane or "-"),) if lanes else ()),
                printable(r.agent or "-"),
                printable(r.mode or "-"),
                printable(r.signal or "(no end)"),
                "-" if r.files_changed is None else str(r.files_changed),
                _seconds(r.duration),
                _seconds(r.checks),
                "-" if r.cost_usd is None else dollars(r.cost_usd),
            )
        )
    widths = [max(len(line[i]) for line in cells) for i in range(len(header))]
    right = {0, *(i + lanes for i in (6, 7, 8, 9))}  # numbers read better aligned right
    out = []
    for line, row in zip(cells, [None, *rows], strict=True):
        parts = [
            cell.rjust(w) if i in right else cell.ljust(w)
            for i, (cell, w) in enumerate(zip(line, widths, strict=True))
        ]
        out.append("  ".join(parts).rstrip())
        if row is not None and row.signal == "REFUSED" and row.note:  # why, under its row
            out.append(f"{' ' * (widths[0] + 2)}{printable(row.note)}")
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
        "checks_seconds": None if r.checks is None else round(r.checks, 3),
        "cost_usd": r.cost_usd,
        "done_count": r.done_count,
        "note": r.note,
        "log": r.log,
        "lane": r.lane,
    }
