"""ui/runreport.py: what a run did, as a value for the end-of-run reports."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from ralph.run.events import RotationEnded, SpecRow
from ralph.ui.runreport import RunReport

DONE: list[dict[str, Any]] = [{"signal": "DONE"}]


@dataclass(frozen=True)
class CostlyRotationEnded(RotationEnded):
    """What an agent adapter might add later: the display must show it without changes."""

    cost_usd: float | None = None


def costly() -> CostlyRotationEnded:
    row = (SpecRow("PROMPT.md", 1, "DONE", False),)
    return CostlyRotationEnded(
        "demo", "PROMPT.md", "IMPLEMENT", 1, 1, 20, "DONE", 0, 1, 2.0, None, (), row, cost_usd=0.125
    )


def test_an_unpriced_usage_is_no_cost() -> None:
    from ralph.rules.counts.state import Tally
    from ralph.ui.runreport import rotation_cost

    unpriced = Tally(rotations=1, input_tokens=5, cost_usd=0.0, unpriced=1)
    priced = Tally(rotations=1, input_tokens=5, cost_usd=0.5, unpriced=0)
    assert rotation_cost(replace(costly(), cost_usd=None, usage=unpriced)) is None
    assert rotation_cost(replace(costly(), cost_usd=None, usage=priced)) == 0.5


def test_reports_sum_a_cost_an_event_carries() -> None:
    from ralph.ui.reports import report_data
    from ralph.ui.runreport import apply_event

    report = apply_event(RunReport(), costly(), 1.0)
    report = apply_event(report, costly(), 2.0)
    assert report_data(report)["totals"]["cost_usd"] == 0.25
