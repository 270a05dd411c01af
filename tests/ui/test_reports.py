"""ui/reports.py: end-of-run reports."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from ralph.rules.counts.state import Tally
from ralph.run.events import RotationEnded, SpecRow
from ralph.ui.reports import junit_xml, markdown_summary, report_data
from ralph.ui.runreport import RunReport, SpecReport
from ralph.ui.runreport import apply_event as report_event

DONE: list[dict[str, Any]] = [{"signal": "DONE"}]


def test_junit_survives_control_characters_and_escapes_in_notes() -> None:
    report = RunReport(
        agent="a\x1b[31m",
        exit_code=3,
        reason="bad <reason> & \x01",
        specs=(SpecReport("s.md", 1, "ERROR", 1, 1.0, None, "exit \x00 code \x1b[2K"),),
    )
    root = ET.fromstring(junit_xml(report).encode())
    failure = root.find("testsuite/testcase/failure")
    assert failure is not None
    assert failure.get("message") == (
        "counter 1/3; last status ERROR; exit  code ; run: bad <reason> & "
    )


def test_markdown_summary_escapes_table_cells() -> None:
    report = RunReport(exit_code=0, specs=(SpecReport("a|b.spec.md", 3, "DONE", 3, 61.0),))
    text = markdown_summary(report)
    assert "| `a\\|b.spec.md` | 3/3 | DONE | 3 | 1:01 | ✅ |" in text
    assert "✅ every spec verified" in text


ROW = (SpecRow("PROMPT.md", 3, "DONE", False),)


PRICE = 0.1  # three of them add up to 0.30000000000000004 in floating point


def ended_rotation(usage: Tally | None) -> RotationEnded:
    """A DONE rotation of PROMPT.md with its usage (also tests/ui/test_panelview.py's)."""
    return RotationEnded(
        "claude", "PROMPT.md", "IMPLEMENT", 1, 1, 20, "DONE", 0, 1, 1.0, None, (), ROW, usage
    )


def test_json_report_rounds_a_sum_of_prices() -> None:
    report = RunReport()
    for _ in range(3):
        report = report_event(report, ended_rotation(Tally(1, 1, 0, PRICE)), 1.0)
    (spec,) = report_data(report)["specs"]
    assert spec["cost_usd"] == round(PRICE * 3, 6)
    assert report_data(report)["totals"]["rotations"] == 3
