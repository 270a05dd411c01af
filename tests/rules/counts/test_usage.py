"""Usage and cost: tallies, budgets, formatting, and their place in state.json."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from ralph.rules.counts.state import SpecState, State, Tally
from ralph.rules.counts.usage import (
    add,
    agent_tally,
    format_cost,
    format_tally,
    format_tokens,
    minus,
    over_budget,
    record_usage,
)
from ralph.store.records.state import load_state, save_state


@dataclass(frozen=True)
class U:
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None


def test_add_counts_tokens_cost_and_unpriced_rotations() -> None:
    t = add(Tally(), U(100, 20, 0.5))
    t = add(t, U(10, 2, None))  # tokens but no price (Codex, Gemini)
    t = add(t, None)  # nothing reported (a custom command)
    assert t == Tally(rotations=3, input_tokens=110, output_tokens=22, cost_usd=0.5, unpriced=2)


def test_record_usage_counts_per_agent_per_spec_and_in_total() -> None:
    state = State(specs=(SpecState("a"), SpecState("b")))
    state = record_usage(state, "a", "claude", U(100, 10, 0.25))
    state = record_usage(state, "b", "codex", U(50, 5, None))
    state = record_usage(state, "a", "codex", U(1, 1, None))
    assert state.usage == Tally(3, 151, 16, 0.25, 2)
    assert agent_tally(state, "claude") == Tally(1, 100, 10, 0.25, 0)
    assert agent_tally(state, "codex") == Tally(2, 51, 6, 0.0, 2)
    a, b = state.get("a"), state.get("b")
    assert a is not None and b is not None
    assert a.usage == Tally(2, 101, 11, 0.25, 1)
    assert b.usage == Tally(1, 50, 5, 0.0, 1)
    # a spec the agent deleted: the totals still count the rotation
    gone = record_usage(state, "deleted", "claude", U(1, 1, 1.0))
    assert gone.usage.cost_usd == 1.25 and gone.get("deleted") is None


def test_this_run_spend_is_totals_now_minus_at_start() -> None:
    start = Tally(5, 1000, 100, 1.0, 0)
    now = Tally(7, 1500, 180, 1.75, 1)
    assert minus(now, start) == Tally(2, 500, 80, 0.75, 1)


@pytest.mark.parametrize(
    ("spent", "max_cost", "max_tokens", "stops"),
    [
        (Tally(1, 10, 10, 0.99), 1.0, None, False),
        (Tally(1, 10, 10, 1.0), 1.0, None, True),  # reached: no further rotation starts
        (Tally(1, 10, 10, 3.0), 1.0, None, True),
        (Tally(1, 500, 499, 0.0), None, 1000, False),
        (Tally(1, 500, 500, 0.0), None, 1000, True),  # in + out both count
        (Tally(1, 10**9, 10**9, 10**6), None, None, False),  # no budget: never stops
    ],
)
def test_budgets(spent: Tally, max_cost: float | None, max_tokens: int | None, stops: bool) -> None:
    reason = over_budget(spent, max_cost, max_tokens)
    assert (reason is not None) is stops
    if reason is not None:
        assert "budget reached" in reason


def test_formatting() -> None:
    assert [format_tokens(n) for n in (0, 999, 1000, 12_345, 4_500_000)] == [
        "0",
        "999",
        "1.0k",
        "12.3k",
        "4.5M",
    ]
    assert format_cost(Tally(2, cost_usd=0.4213)) == "$0.42"
    assert format_cost(Tally(2, cost_usd=0.42, unpriced=1)) == "$0.42+"  # a lower bound
    assert format_cost(Tally(2, unpriced=2)) == "—"
    # a sum added up live and the same sum read back from state.json read alike
    live = sum([0.021] * 13) + 0.002
    assert format_cost(Tally(14, cost_usd=live)) == format_cost(Tally(14, cost_usd=0.275))
    assert format_tally(Tally(1, 12_345, 678, 0.05)) == "12.3k in · 678 out · $0.05"
    assert format_tally(Tally(3, unpriced=3)) == "not reported"
    assert format_tally(Tally()) == "—"


def test_usage_survives_a_save_and_load(tmp_path: Path) -> None:
    state = State(specs=(SpecState("a"),))
    state = record_usage(state, "a", "claude", U(100, 10, 0.125))
    row = state.get("a")
    assert row is not None
    state = state.with_spec(SpecState("a", usage=row.usage, last_changed_by="claude"))
    path = tmp_path / "state.json"
    save_state(path, state)
    assert load_state(path) == state
    data = json.loads(path.read_text())
    assert data["usage"]["cost_usd"] == 0.125
    assert data["agents"]["claude"]["input_tokens"] == 100
    assert data["specs"][0]["last_changed_by"] == "claude"
