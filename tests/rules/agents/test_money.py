"""rules/agents/money.py: prices in JSON output are rounded to 6 decimals, at any depth, and only
prices are."""

from __future__ import annotations

from ralph.rules.agents.money import dollars, money, rounded_money


def test_a_price_is_rounded_and_none_stays_none() -> None:
    assert money(0.1 + 0.2 + 0.192) == 0.492
    assert money(None) is None


def test_every_cost_key_at_any_depth_is_rounded_and_nothing_else() -> None:
    noisy = 0.49200000000000005
    data = {
        "cost_usd": noisy,
        "ratio": noisy,  # not a price: kept as it is
        "specs": [{"total_cost": noisy, "cost_note": "cheap", "cost_count": 3}],
        "nested": ({"cost": 1.23456789},),
    }
    assert rounded_money(data) == {
        "cost_usd": 0.492,
        "ratio": noisy,
        "specs": [{"total_cost": 0.492, "cost_note": "cheap", "cost_count": 3}],
        "nested": [{"cost": 1.234568}],
    }


def test_a_price_reads_the_same_summed_live_and_read_back_rounded() -> None:
    """Thirteen rotations at $0.021 and one at $0.002: the run's end line summed them live
    (0.27499999999999997), `ralph status` reads the 6-decimal value state.json keeps (0.275);
    both say $0.28, not $0.27 on one and $0.28 on the other."""
    live = sum([0.021] * 13) + 0.002
    kept = money(live)
    assert kept is not None
    assert dollars(live) == dollars(kept) == "$0.28"
    assert dollars(live, 4) == "$0.2750"
