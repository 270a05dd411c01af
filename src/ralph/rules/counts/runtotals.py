"""A run's numbers, computed once: its rotations, the tokens and cost of every agent call (the
rotations, the final verifications, a semantic check's judges), the agents' time, ralph's own
checks' time and the wall time, from the run's worklog records. The end line, `status`, the
JSON and HTML reports and the webhook all show what this one function says. Pure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any

from ralph.rules.counts import recorded
from ralph.rules.counts.state import Tally
from ralph.rules.counts.usage import add

# The records that stand for one agent call, and those of them that are a rotation.
_CALLS = ("rotation_end", "verification", "judge")


@dataclass(frozen=True)
class Spent:
    """One call's usage as its record says it (`rules/usage.Spent`)."""

    input_tokens: int
    output_tokens: int
    cost_usd: float | None


@dataclass(frozen=True)
class RunTotals:
    rotations: int = 0  # rotations ended, the final verifications' included
    usage: Tally = field(default_factory=Tally)  # every agent call's tokens and cost, as reported
    agent_s: float = 0.0  # the agents' own time in those rotations
    checks_s: float = 0.0  # ralph's checks: the bar, the DONE gate, a final verification's
    wall_s: float | None = None  # from the run's start to its end (or its last record)

    def to_json(self) -> dict[str, Any]:
        from ralph.rules.counts.state import usage_to_json

        return {
            "rotations": self.rotations,
            **{k: v for k, v in usage_to_json(self.usage).items() if k != "rotations"},
            "calls": self.usage.rotations,
            "seconds": None if self.wall_s is None else round(self.wall_s, 3),
            "agent_seconds": round(self.agent_s, 3),
            "checks_seconds": round(self.checks_s, 3),
        }


def recorded_totals(rec: dict[str, Any]) -> RunTotals | None:
    """The numbers a `run_end` record says its run had (what `to_json` wrote), or None."""
    data = rec.get("totals")
    if rec.get("event") != "run_end" or not isinstance(data, dict):
        return None
    calls = recorded.count(data.get("calls"))
    cost = recorded.money(data.get("cost_usd"))
    usage = Tally(
        rotations=calls,
        input_tokens=recorded.count(data.get("input_tokens")),
        output_tokens=recorded.count(data.get("output_tokens")),
        cost_usd=cost or 0.0,
        unpriced=calls if cost is None else min(calls, recorded.count(data.get("unpriced"))),
    )
    return RunTotals(
        recorded.count(data.get("rotations")),
        usage,
        recorded.seconds(data.get("agent_seconds")) or 0.0,
        recorded.seconds(data.get("checks_seconds")) or 0.0,
        recorded.seconds(data.get("seconds")),
    )


def spent(rec: dict[str, Any]) -> Spent | None:
    """The usage one call's record reports; None when its agent reported none."""
    tokens_in, tokens_out = rec.get("input_tokens"), rec.get("output_tokens")
    cost = recorded.money(rec.get("cost_usd"))
    if tokens_in is None and tokens_out is None and cost is None:
        return None
    return Spent(recorded.count(tokens_in), recorded.count(tokens_out), cost)


def is_call(rec: dict[str, Any]) -> bool:
    """Does this record stand for one agent call (a rotation's, a verifier's, a judge's end)?"""
    kind = rec.get("event")
    if kind == "verification":
        return rec.get("transition") in ("passed", "failed")
    return kind in _CALLS


def run_totals(records: Iterable[dict[str, Any]], now: float | None = None) -> RunTotals:
    """The numbers of the run whose records (from its `run_start` on) these are, or of a job's
    runs one after the other: each run's wall time is its own (what its `run_end` recorded, or
    from its start to its last record), and a part a run continued after a kill (`continues`)
    counts from its own start, never the time nobody ran; a run not recorded as ended has
    lasted until `now` (by default, until its last record)."""
    rotations, usage, agent_s, checks_s = 0, Tally(), 0.0, 0.0
    before = 0.0  # the wall time of the runs before this one (a job's)
    done = 0.0  # this run's parts that ended, the earlier runs' included
    start: float | None = None  # the part under way began then
    last: float | None = None
    any_start = False
    for rec in records:
        kind = rec.get("event")
        ts = recorded.epoch(rec.get("ts"))
        if kind == "run_start":
            if start is not None and last is not None:  # the part before it ended unrecorded
                done += max(0.0, last - start)
            before = before if rec.get("continues") is True else done
            start, any_start = ts, True
        last = ts if ts is not None else last
        if kind == "run_end" and isinstance(rec.get("totals"), dict):
            seconds = recorded.seconds(rec["totals"].get("seconds"))
            if seconds is not None:  # the whole run as it said it, its earlier parts included
                done, start = before + seconds, None
        if kind == "bar":  # the tests' bar, measured before the first rotation
            checks_s += recorded.seconds(rec.get("seconds")) or 0.0
        if not is_call(rec):
            continue
        usage = add(usage, spent(rec))
        if kind != "judge":  # a judge's time is inside its check's
            rotations += 1
            agent_s += recorded.seconds(rec.get("agent_s")) or 0.0
            checks_s += recorded.seconds(rec.get("checks_s")) or 0.0
    last = recorded.epoch(now) if now is not None else last
    if start is not None and last is not None:
        done += max(0.0, last - start)
    return RunTotals(rotations, usage, agent_s, checks_s, done if any_start else None)
