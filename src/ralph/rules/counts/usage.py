"""Tokens and cost: adding a rotation's usage to the state, budgets, and how totals read.

Pure and light (no Rich, no Pydantic): `ralph status` formats totals with it.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Protocol

from ralph.rules.agents.money import dollars
from ralph.rules.counts.state import State, Tally


class Spent(Protocol):
    """One rotation's usage as the agent reported it (`ralph.agents.command.Usage` fits)."""

    @property
    def input_tokens(self) -> int: ...
    @property
    def output_tokens(self) -> int: ...
    @property
    def cost_usd(self) -> float | None: ...


def add(tally: Tally, spent: Spent | None) -> Tally:
    """`tally` plus one rotation; a rotation without a reported price is counted as unpriced."""
    if spent is None:
        return replace(tally, rotations=tally.rotations + 1, unpriced=tally.unpriced + 1)
    return Tally(
        rotations=tally.rotations + 1,
        input_tokens=tally.input_tokens + max(0, spent.input_tokens),
        output_tokens=tally.output_tokens + max(0, spent.output_tokens),
        cost_usd=tally.cost_usd + max(0.0, spent.cost_usd or 0.0),
        unpriced=tally.unpriced + (spent.cost_usd is None),
    )


def merge(a: Tally, b: Tally) -> Tally:
    """Two tallies added up."""
    return Tally(
        rotations=a.rotations + b.rotations,
        input_tokens=a.input_tokens + b.input_tokens,
        output_tokens=a.output_tokens + b.output_tokens,
        cost_usd=a.cost_usd + b.cost_usd,
        unpriced=a.unpriced + b.unpriced,
    )


UNREPORTED = Tally(rotations=1, unpriced=1)  # a rotation whose agent reported no usage


def minus(now: Tally, before: Tally) -> Tally:
    """What was spent between two totals (this run's spend: totals now minus at its start)."""
    return Tally(
        rotations=max(0, now.rotations - before.rotations),
        input_tokens=max(0, now.input_tokens - before.input_tokens),
        output_tokens=max(0, now.output_tokens - before.output_tokens),
        cost_usd=max(0.0, now.cost_usd - before.cost_usd),
        unpriced=max(0, now.unpriced - before.unpriced),
    )


def agent_tally(state: State, agent: str) -> Tally:
    return next((t for name, t in state.agent_usage if name == agent), Tally())


def record_usage(state: State, spec: str, agent: str, spent: Spent | None) -> State:
    """Count one rotation of `agent` on `spec` in the totals, per agent and per spec."""
    agents = dict(state.agent_usage)
    agents[agent] = add(agents.get(agent, Tally()), spent)
    state = replace(state, usage=add(state.usage, spent), agent_usage=tuple(agents.items()))
    row = state.get(spec)
    if row is None:  # the agent deleted its own spec: the totals still count the rotation
        return state
    return state.with_spec(replace(row, usage=add(row.usage, spent)))


def over_budget(spent: Tally, max_cost: float | None, max_tokens: int | None) -> str | None:
    """Why the run must stop before another rotation, or None while within its budgets."""
    if max_cost is not None and spent.cost_usd >= max_cost:
        return f"cost budget reached ({format_cost(spent)} of {dollars(max_cost)} this run)"
    if max_tokens is not None and spent.tokens >= max_tokens:
        return (
            f"token budget reached ({format_tokens(spent.tokens)} of "
            f"{format_tokens(max_tokens)} tokens this run)"
        )
    return None


def format_tokens(count: int) -> str:
    """1234 -> 1.2k, 4500000 -> 4.5M: totals stay short enough for a panel row."""
    if count < 1000:
        return str(count)
    if count < 1_000_000:
        return f"{count / 1000:.1f}k"
    return f"{count / 1_000_000:.1f}M"


def format_cost(tally: Tally) -> str:
    """`$0.42`; `$0.42+` when some rotations reported no price; `—` when none did."""
    priced = tally.rotations - tally.unpriced
    if priced <= 0:
        return "—"
    return dollars(tally.cost_usd) + ("+" if tally.unpriced else "")


def format_tally(tally: Tally) -> str:
    """`12.3k in · 4.5k out · $0.42`, or `not reported` when no rotation reported anything."""
    if tally.rotations == 0:
        return "—"
    if not tally.tokens and tally.unpriced == tally.rotations:
        return "not reported"
    return (
        f"{format_tokens(tally.input_tokens)} in · {format_tokens(tally.output_tokens)} out"
        f" · {format_cost(tally)}"
    )
