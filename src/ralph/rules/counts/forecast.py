"""What a verified spec costs and what the open ones will, from this project's own rotations
(pure): the tokens and cost of each spec (`specs[].usage`, every agent call counted), their
average over the verified specs, and a forecast for the specs still open.

The forecast for an open spec is what a verified spec cost on average, less what the open spec
has spent already, but never less than one average agent call: a spec that has cost more than
the average is not free to finish. No spec verified yet: no forecast (nothing to go by).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ralph.rules.counts.state import MAX_COUNT, SpecState, Tally
from ralph.rules.counts.usage import format_cost, format_tokens, merge


@dataclass(frozen=True)
class SpecCosts:
    specs: int
    verified: int
    spent_verified: Tally  # what the verified specs cost, all told
    spent_open: Tally  # what the open specs have cost so far
    per_verified: Tally | None  # the average verified spec; None: none verified yet
    forecast: Tally | None  # to finish the open specs; None: nothing to go by (or none open)

    @property
    def open(self) -> int:
        return self.specs - self.verified


def _scaled(tally: Tally, factor: float) -> Tally:
    return Tally(
        rotations=round(tally.rotations * factor),
        input_tokens=round(tally.input_tokens * factor),
        output_tokens=round(tally.output_tokens * factor),
        cost_usd=tally.cost_usd * factor,
        unpriced=round(tally.unpriced * factor),
    )


def _left(average: Tally, spent: Tally, per_call: Tally) -> Tally:
    """What an open spec still needs: the average less what it spent, at least one call."""
    return Tally(
        rotations=max(average.rotations - spent.rotations, 1),
        input_tokens=max(average.input_tokens - spent.input_tokens, per_call.input_tokens),
        output_tokens=max(average.output_tokens - spent.output_tokens, per_call.output_tokens),
        cost_usd=max(average.cost_usd - spent.cost_usd, per_call.cost_usd),
        unpriced=min(average.unpriced, 1),
    )


def spec_costs(specs: Sequence[SpecState]) -> SpecCosts:
    done = [s for s in specs if s.done_count >= MAX_COUNT]
    open_ = [s for s in specs if s.done_count < MAX_COUNT]
    spent_verified = _sum(s.usage for s in done)
    spent_open = _sum(s.usage for s in open_)
    per_verified = _scaled(spent_verified, 1 / len(done)) if done else None
    forecast = None
    if per_verified is not None and open_ and spent_verified.rotations:
        per_call = _scaled(spent_verified, 1 / spent_verified.rotations)
        forecast = _sum(_left(per_verified, s.usage, per_call) for s in open_)
    return SpecCosts(len(specs), len(done), spent_verified, spent_open, per_verified, forecast)


def _sum(tallies: Any) -> Tally:
    total = Tally()
    for tally in tallies:
        total = merge(total, tally)
    return total


def _tally_json(tally: Tally | None) -> dict[str, Any] | None:
    if tally is None:
        return None
    priced = tally.rotations > tally.unpriced
    return {
        "calls": tally.rotations,
        "input_tokens": tally.input_tokens,
        "output_tokens": tally.output_tokens,
        "cost_usd": round(tally.cost_usd, 6) if priced else None,
    }


def costs_json(c: SpecCosts) -> dict[str, Any]:
    """For `status --json`, `--report-json`: `cost_usd` null where no call reported a price."""
    return {
        "specs": c.specs,
        "verified": c.verified,
        "open": c.open,
        "spent_verified": _tally_json(c.spent_verified),
        "spent_open": _tally_json(c.spent_open),
        "per_verified_spec": _tally_json(c.per_verified),
        "forecast_open": _tally_json(c.forecast),
    }


def _tally_of(data: Any) -> Tally | None:
    """The Tally `_tally_json` wrote (None for anything else)."""
    if not isinstance(data, dict):
        return None
    calls = int(data.get("calls") or 0)
    cost = data.get("cost_usd")
    return Tally(
        rotations=calls,
        input_tokens=int(data.get("input_tokens") or 0),
        output_tokens=int(data.get("output_tokens") or 0),
        cost_usd=float(cost) if isinstance(cost, (int, float)) else 0.0,
        unpriced=0 if isinstance(cost, (int, float)) else calls,
    )


def costs_from_json(data: Any) -> SpecCosts | None:
    """What `costs_json` wrote, read back (a run's end event carries it); None if not that."""
    if not isinstance(data, dict) or not isinstance(data.get("specs"), int):
        return None
    return SpecCosts(
        data["specs"],
        int(data.get("verified") or 0),
        _tally_of(data.get("spent_verified")) or Tally(),
        _tally_of(data.get("spent_open")) or Tally(),
        _tally_of(data.get("per_verified_spec")),
        _tally_of(data.get("forecast_open")),
    )


def costs_line(c: SpecCosts) -> str | None:
    """`per verified spec: $0.42, 12.3k tokens · 2 open: about $0.84, 24.6k tokens to finish`;
    None before anything was spent."""
    if c.per_verified is None:
        if not c.spent_open.rotations:
            return None
        return (
            f"{c.open} open: {_brief(c.spent_open)} so far; no spec verified yet to forecast from"
        )
    line = f"per verified spec: {_brief(c.per_verified)}"
    if c.forecast is not None:
        line += f" · {c.open} open: about {_brief(c.forecast)} to finish"
    return line


def _brief(tally: Tally) -> str:
    return f"{format_cost(tally)}, {format_tokens(tally.tokens)} tokens"
