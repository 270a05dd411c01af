"""rules/agents/budget.py: the latency budget for ralph's own work in one rotation (pure)."""

from __future__ import annotations

import pytest

from ralph.rules.agents.budget import DEFAULT_BUDGET_MS, LatencyBudget


class Clock:
    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        return self.now


def test_a_new_budget_has_3000_ms() -> None:
    budget = LatencyBudget()
    assert DEFAULT_BUDGET_MS == 3000
    assert (budget.total_ms, budget.remaining_ms, budget.used_ms) == (3000, 3000, 0)


def test_operations_are_timed_against_it_even_when_they_raise() -> None:
    clock = Clock()
    budget = LatencyBudget(1000, clock)
    with budget.operation("snapshot"):
        clock.now += 0.25
    with pytest.raises(RuntimeError), budget.operation("state_save"):
        clock.now += 0.1
        raise RuntimeError
    with budget.operation("snapshot"):
        clock.now += 0.05
    assert budget.spent == pytest.approx({"snapshot": 300, "state_save": 100})
    assert budget.remaining_ms == pytest.approx(600)


def test_optional_work_is_skipped_below_twenty_percent() -> None:
    budget = LatencyBudget(3000)
    budget.record("snapshot", 2399)
    assert not budget.should_skip_optional()
    assert budget.optional("changed_paths") is True
    budget.record("state_save", 2)  # 599 ms left: under 600
    assert budget.should_skip_optional()
    assert budget.optional("changed_paths") is False
    assert budget.skipped == ["changed_paths"]


def test_can_afford_and_exceeded() -> None:
    budget = LatencyBudget(100)
    budget.record("x", 60)
    assert budget.can_afford(40) and not budget.can_afford(41)
    assert not budget.exceeded
    budget.record("y", 41)
    assert budget.exceeded
    assert budget.to_json()["remaining_ms"] == pytest.approx(-1)
