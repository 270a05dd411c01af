"""End-of-run reports: JUnit XML, a Markdown summary, a JSON report. Pure: events in, text out.

A `RunReport` is folded from the same events the displays get, so anything the loop tells a
display (including fields added to events later, such as cost) can reach the reports; the
runner writes the texts to disk at the end of every run, however it ended.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any

from ralph.rules.state import MAX_COUNT
from ralph.run.events import (
    Event,
    RotationEnded,
    RotationStarted,
    RunEnded,
    RunStarted,
    SpecRow,
    event_fields,
)

# Characters XML 1.0 cannot carry at all (an agent's note may contain any of them).
_XML_INVALID = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b.")


@dataclass(frozen=True)
class SpecReport:
    path: str
    done_count: int = 0
    last_status: str | None = None
    rotations: int = 0  # rotations of this spec in this run
    seconds: float = 0.0  # their total time
    cost_usd: float | None = None  # summed where the agent reports a price
    last_note: str | None = None  # why its last rotation failed, or a warning

    @property
    def verified(self) -> bool:
        return self.done_count >= MAX_COUNT


@dataclass(frozen=True)
class RunReport:
    agent: str | None = None
    started_at: float | None = None
    ended_at: float | None = None
    exit_code: int | None = None  # None: the run has not ended
    reason: str | None = None
    iteration: int = 0
    max_iteration: int | None = None
    specs: tuple[SpecReport, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # unknown fields of RunEnded

    @property
    def verified(self) -> int:
        return sum(1 for s in self.specs if s.verified)

    @property
    def rotations(self) -> int:
        return sum(s.rotations for s in self.specs)

    @property
    def cost_usd(self) -> float | None:
        costs = [s.cost_usd for s in self.specs if s.cost_usd is not None]
        return round(sum(costs), 6) if costs else None

    @property
    def duration(self) -> float | None:
        if self.started_at is None or self.ended_at is None:
            return None
        return max(0.0, self.ended_at - self.started_at)


def rotation_cost(event: Event) -> float | None:
    """The price of a rotation where the event carries one (`cost_usd`, or `usage.cost_usd`)."""
    data = event_fields(event)
    cost = data.get("cost_usd")
    usage = data.get("usage")
    if cost is None and isinstance(usage, dict):
        # A tally whose every rotation went unpriced has a 0.0 that means "unknown", not free.
        priced = usage.get("rotations", 1) != usage.get("unpriced", 0)
        cost = usage.get("cost_usd") if priced else None
    return float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None


def _with_matrix(report: RunReport, matrix: tuple[SpecRow, ...]) -> RunReport:
    """Counters and statuses from the matrix; per-run tallies kept; specs follow the matrix."""
    known = {s.path: s for s in report.specs}
    specs = tuple(
        replace(
            known.get(row.path, SpecReport(row.path)),
            done_count=row.done_count,
            last_status=row.last_status,
        )
        for row in matrix
    )
    return replace(report, specs=specs)


def apply_event(report: RunReport, event: Event, now: float) -> RunReport:
    """The report after `event` (received at `now`)."""
    if isinstance(event, RunStarted):
        report = replace(
            report,
            agent=event.agent,
            started_at=now,
            iteration=event.iteration,
            max_iteration=event.max_iteration,
        )
        return _with_matrix(report, event.matrix)
    if isinstance(event, RotationStarted):
        return _with_matrix(replace(report, iteration=event.iteration), event.matrix)
    if isinstance(event, RotationEnded):
        report = _with_matrix(replace(report, iteration=event.iteration), event.matrix)
        cost = rotation_cost(event)
        specs = []
        for s in report.specs:
            if s.path != event.spec:
                specs.append(s)
                continue
            total = s.cost_usd if cost is None else (s.cost_usd or 0.0) + cost
            specs.append(
                replace(
                    s,
                    rotations=s.rotations + 1,
                    seconds=s.seconds + max(0.0, event.elapsed),
                    cost_usd=total,
                    last_note=event.note,
                )
            )
        return replace(report, specs=tuple(specs))
    if isinstance(event, RunEnded):
        known = {"exit_code", "reason", "iteration", "max_iteration", "matrix"}
        extra = {k: v for k, v in event_fields(event).items() if k not in known}
        report = replace(
            report,
            ended_at=now,
            exit_code=event.exit_code,
            reason=event.reason,
            iteration=event.iteration,
            max_iteration=event.max_iteration,
            extra=extra,
        )
        return _with_matrix(report, event.matrix)
    return report


def finish(
    report: RunReport,
    *,
    exit_code: int,
    reason: str,
    now: float,
    matrix: tuple[SpecRow, ...] | None = None,
) -> RunReport:
    """A report for a run that stopped without its RunEnded event (an error, a refused run)."""
    if report.exit_code is not None:
        return report
    report = replace(report, exit_code=exit_code, reason=reason, ended_at=now)
    if report.started_at is None:
        report = replace(report, started_at=now)
    return report if matrix is None else _with_matrix(report, matrix)


def _text(value: str) -> str:
    return _XML_INVALID.sub("", _ANSI.sub("", value))


def failure_reason(spec: SpecReport, report: RunReport) -> str:
    """Why a spec is not verified, in one line."""
    status = spec.last_status or "never processed"
    parts = [f"counter {spec.done_count}/{MAX_COUNT}", f"last status {status}"]
    if spec.last_note:
        parts.append(spec.last_note)
    if report.reason:
        parts.append(f"run: {report.reason}")
    return _text("; ".join(parts))


def junit_xml(report: RunReport) -> str:
    """JUnit XML: one test case per spec, passed when verified (3/3), failed otherwise."""
    import xml.etree.ElementTree as ET

    failures = len(report.specs) - report.verified
    total_time = report.duration if report.duration is not None else 0.0
    suites = ET.Element(
        "testsuites",
        name="ralph",
        tests=str(len(report.specs)),
        failures=str(failures),
        errors="0",
        time=f"{total_time:.3f}",
    )
    suite = ET.SubElement(
        suites,
        "testsuite",
        name="ralph",
        tests=str(len(report.specs)),
        failures=str(failures),
        errors="0",
        skipped="0",
        time=f"{total_time:.3f}",
    )
    props = ET.SubElement(suite, "properties")
    for name, value in (
        ("agent", report.agent or ""),
        ("exit_code", "" if report.exit_code is None else str(report.exit_code)),
        ("reason", report.reason or ""),
        ("iteration", str(report.iteration)),
        ("rotations", str(report.rotations)),
    ):
        ET.SubElement(props, "property", name=name, value=_text(value))
    for spec in report.specs:
        case = ET.SubElement(
            suite, "testcase", classname="ralph.specs", name=spec.path, time=f"{spec.seconds:.3f}"
        )
        case_props = ET.SubElement(case, "properties")
        ET.SubElement(case_props, "property", name="rotations", value=str(spec.rotations))
        ET.SubElement(
            case_props, "property", name="counter", value=f"{spec.done_count}/{MAX_COUNT}"
        )
        if spec.cost_usd is not None:
            ET.SubElement(case_props, "property", name="cost_usd", value=f"{spec.cost_usd:.4f}")
        if not spec.verified:
            reason = failure_reason(spec, report)
            failure = ET.SubElement(case, "failure", message=reason, type="NotVerified")
            failure.text = reason
        out = ET.SubElement(case, "system-out")
        out.text = (
            f"rotations this run: {spec.rotations}; counter {spec.done_count}/{MAX_COUNT}; "
            f"last status {spec.last_status or '-'}"
        )
    ET.indent(suites)
    body = ET.tostring(suites, encoding="unicode")
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + body + "\n"


def _cell(value: str) -> str:
    return _text(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _clock(seconds: float) -> str:
    total = int(seconds)
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}:{minutes:02d}:{secs:02d}" if hours else f"{minutes}:{secs:02d}"


def markdown_summary(report: RunReport) -> str:
    """A GitHub step summary: the outcome, then one table row per spec."""
    ok = report.exit_code == 0
    head = "✅ every spec verified" if ok else f"❌ stopped (exit {report.exit_code})"
    lines = [f"## ralph: {head}", ""]
    if report.reason:
        lines += [_cell(report.reason), ""]
    facts = [
        f"{report.verified}/{len(report.specs)} specs verified",
        f"{report.rotations} rotations this run",
    ]
    if report.duration is not None:
        facts.append(f"time {_clock(report.duration)}")
    if report.cost_usd is not None:
        facts.append(f"cost ${report.cost_usd:.2f}")
    if report.agent:
        facts.append(f"agent {_cell(report.agent)}")
    lines += [" · ".join(facts), ""]
    lines += [
        "| Spec | Counter | Last status | Rotations | Time | Verified |",
        "|---|---|---|---:|---:|:---:|",
    ]
    for s in report.specs:
        lines.append(
            f"| `{_cell(s.path)}` | {s.done_count}/{MAX_COUNT} | {_cell(s.last_status or '—')} "
            f"| {s.rotations} | {_clock(s.seconds)} | {'✅' if s.verified else '❌'} |"
        )
    return "\n".join(lines) + "\n\n"


def report_data(report: RunReport) -> dict[str, Any]:
    """`--report-json`: the final matrix and the totals."""
    return {
        "exit_code": report.exit_code,
        "reason": report.reason,
        "complete": bool(report.specs) and report.verified == len(report.specs),
        "agent": report.agent,
        "started_at": report.started_at,
        "ended_at": report.ended_at,
        "iteration": report.iteration,
        "max_iterations": report.max_iteration,
        "totals": {
            "specs": len(report.specs),
            "verified": report.verified,
            "rotations": report.rotations,
            "seconds": round(report.duration, 3) if report.duration is not None else None,
            "cost_usd": report.cost_usd,
        },
        "specs": [
            {
                "path": s.path,
                "done_count": s.done_count,
                "last_status": s.last_status,
                "verified": s.verified,
                "rotations": s.rotations,
                "seconds": round(s.seconds, 3),
                "cost_usd": s.cost_usd,
                "note": s.last_note,
            }
            for s in report.specs
        ],
        **({"extra": report.extra} if report.extra else {}),
    }
