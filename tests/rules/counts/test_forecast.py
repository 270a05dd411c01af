"""rules/counts/forecast.py: what a verified spec costs and what the open ones will, from this
project's
own rotations (pure)."""

from __future__ import annotations

import pytest

from ralph.rules.counts.forecast import costs_json, costs_line, spec_costs
from ralph.rules.counts.state import SpecState, Tally


def spec(path: str, done: int, calls: int, tokens: int, cost: float) -> SpecState:
    return SpecState(
        path, done_count=done, usage=Tally(calls, tokens, 0, cost_usd=cost, unpriced=0)
    )


def test_cost_per_verified_spec_is_the_average_of_the_verified_ones() -> None:
    c = spec_costs(
        [spec("a", 3, 4, 40_000, 0.40), spec("b", 3, 6, 80_000, 0.80), spec("c", 1, 1, 5_000, 0.05)]
    )
    assert (c.specs, c.verified, c.open) == (3, 2, 1)
    assert c.per_verified is not None
    assert c.per_verified.cost_usd == pytest.approx(0.60)
    assert c.per_verified.input_tokens == 60_000 and c.per_verified.rotations == 5
    # the open spec: an average verified spec less what it spent already
    assert c.forecast is not None
    assert c.forecast.cost_usd == pytest.approx(0.55)
    assert c.forecast.input_tokens == 55_000
    assert (
        costs_line(c)
        == "per verified spec: $0.60, 60.0k tokens · 1 open: about $0.55, 55.0k tokens to finish"
    )


def test_an_open_spec_that_cost_more_than_the_average_still_needs_at_least_a_call() -> None:
    c = spec_costs([spec("a", 3, 2, 20_000, 0.20), spec("b", 0, 9, 90_000, 0.90)])
    assert c.forecast is not None
    assert c.forecast.cost_usd == pytest.approx(0.10)  # one average call, not zero
    assert c.forecast.input_tokens == 10_000


def test_no_verified_spec_no_forecast_and_unpriced_calls_say_so() -> None:
    c = spec_costs([spec("a", 1, 2, 1000, 0.02)])
    assert c.per_verified is None and c.forecast is None
    assert (
        costs_line(c) == "1 open: $0.02, 1.0k tokens so far; no spec verified yet to forecast from"
    )
    assert costs_line(spec_costs([SpecState("x")])) is None  # nothing spent: nothing to say
    unpriced = SpecState("u", done_count=3, usage=Tally(2, 500, 50, 0.0, unpriced=2))
    data = costs_json(spec_costs([unpriced]))
    assert data["per_verified_spec"]["cost_usd"] is None  # unknown, not free
    assert data["per_verified_spec"]["input_tokens"] == 500
