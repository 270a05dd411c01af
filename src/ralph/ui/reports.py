"""End-of-run reports: JUnit XML, a Markdown summary, a JSON report. Pure: a RunReport in, text
out; the run command writes them to disk at the end of every run, however it ended."""

from __future__ import annotations

from typing import Any

from ralph.rules.agents.money import dollars
from ralph.rules.counts.state import MAX_COUNT
from ralph.rules.text.printable import clean_text, printable
from ralph.rules.text.words import plural
from ralph.ui.runreport import RunReport, SpecReport
from ralph.ui.text import format_clock


def _text(value: str) -> str:
    """Text an XML 1.0 document and a Markdown table can carry (an agent's note may hold any
    character): escape sequences and control characters removed, lines kept."""
    return clean_text(value)


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
        *_cost_properties(report.costs),
    ):
        ET.SubElement(props, "property", name=name, value=_text(value))
    for spec in report.specs:
        case = ET.SubElement(
            suite,
            "testcase",
            classname="ralph.specs",
            name=printable(spec.path),
            time=f"{spec.seconds:.3f}",
        )
        case_props = ET.SubElement(case, "properties")
        ET.SubElement(case_props, "property", name="rotations", value=str(spec.rotations))
        ET.SubElement(
            case_props, "property", name="counter", value=f"{spec.done_count}/{MAX_COUNT}"
        )
        if spec.cost_usd is not None:
            ET.SubElement(case_props, "property", name="cost_usd", value=f"{spec.cost_usd:.4f}")
        for name, value in _spec_properties(report.costs, spec.path):
            ET.SubElement(case_props, "property", name=name, value=value)
        if spec.tests is not None:  # what its last test run did, from the runner's summary
            for key in ("passed", "failed", "skipped"):
                value = str(getattr(spec.tests, key))
                ET.SubElement(case_props, "property", name=f"tests_{key}", value=value)
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


def _cost_properties(costs: dict[str, Any] | None) -> list[tuple[str, str]]:
    """The suite's figures: per verified spec, and the forecast for the open specs."""
    out: list[tuple[str, str]] = []
    for key, label in (("per_verified_spec", "per_verified_spec"), ("forecast_open", "forecast")):
        tally = (costs or {}).get(key)
        if isinstance(tally, dict):
            out.append((f"{label}_tokens", str(tally["input_tokens"] + tally["output_tokens"])))
            if tally.get("cost_usd") is not None:
                out.append((f"{label}_cost_usd", f"{tally['cost_usd']:.4f}"))
    return out


def _spec_properties(costs: dict[str, Any] | None, path: str) -> list[tuple[str, str]]:
    """A spec's tokens and cost since the state was created (every run, every agent call)."""
    spent = (costs or {}).get("per_spec", {}).get(path)
    if not isinstance(spent, dict):
        return []
    out = [("tokens_total", str(spent["input_tokens"] + spent["output_tokens"]))]
    if spent.get("cost_usd") is not None:
        out.append(("cost_usd_total", f"{spent['cost_usd']:.4f}"))
    return out


def _cell(value: str) -> str:
    return _text(value).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def markdown_summary(report: RunReport) -> str:
    """A GitHub step summary: the outcome, then one table row per spec."""
    ok = report.exit_code == 0
    head = "✅ every spec verified" if ok else f"❌ stopped (exit {report.exit_code})"
    lines = [f"## ralph: {head}", ""]
    if report.reason:
        lines += [_cell(report.reason), ""]
    facts = [
        f"{report.verified}/{len(report.specs)} specs verified",
        f"{plural(report.rotations, 'rotation')} this run",
    ]
    if report.duration is not None:
        facts.append(f"time {format_clock(report.duration)}")
    if report.cost_usd is not None:
        facts.append(f"cost {dollars(report.cost_usd)}")
    if report.agent:
        facts.append(f"agent {_cell(report.agent)}")
    lines += [" · ".join(facts), ""]
    lines += [
        "| Spec | Counter | Last status | Rotations | Time | Verified |",
        "|---|---|---|---:|---:|:---:|",
    ]
    for s in report.specs:
        lines.append(
            f"| `{_cell(printable(s.path))}` | {s.done_count}/{MAX_COUNT} "
            f"| {_cell(s.last_status or '—')} "
            f"| {s.rotations} | {format_clock(s.seconds)} | {'✅' if s.verified else '❌'} |"
        )
    return "\n".join(lines) + "\n\n"


def _ms(seconds: float | None) -> float | None:
    return None if seconds is None else round(seconds, 3)


def _totals(report: RunReport) -> dict[str, Any]:
    """The run's tokens, calls and times, as every other place shows them (rules/runtotals)."""
    if report.totals is None:
        return {}
    data = report.totals.to_json()
    keys = ("input_tokens", "output_tokens", "calls", "agent_seconds", "checks_seconds")
    return {k: data[k] for k in keys}


def report_data(report: RunReport) -> dict[str, Any]:
    """`--report-json`: the final matrix and the totals (money rounded, as in every output)."""
    from ralph.rules.agents.money import rounded_money
    from ralph.schemas.catalog import SCHEMA_VERSION

    data: dict[str, Any] = {
        "schema_version": SCHEMA_VERSION,
        "exit_code": report.exit_code,
        "reason": report.reason,
        "complete": bool(report.specs) and report.verified == len(report.specs),
        "agent": report.agent,
        "started_at": _ms(report.started_at),
        "ended_at": _ms(report.ended_at),
        "iteration": report.iteration,
        "max_iterations": report.max_iterations,
        "totals": {
            "specs": len(report.specs),
            "verified": report.verified,
            "rotations": report.rotations,
            "seconds": round(report.duration, 3) if report.duration is not None else None,
            "cost_usd": report.cost_usd,
            **_totals(report),
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
        "costs": report.costs,
        **({"extra": report.extra} if report.extra else {}),
    }
    return dict(rounded_money(data))
