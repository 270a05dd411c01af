"""What a run did, as a value for the end-of-run reports: a `RunReport` folded from the same
events the displays get (pure), so anything the loop tells a display (including fields added
to events later, such as cost) can reach the reports."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from ralph.rules.counts.runtotals import RunTotals
from ralph.rules.counts.state import MAX_COUNT
from ralph.rules.evidence.testcounts import TestCounts
from ralph.run.events import (
    Event,
    RotationEnded,
    RotationStarted,
    RunEnded,
    RunStarted,
    SpecRow,
    carried,
    event_fields,
)


@dataclass(frozen=True)
class SpecReport:
    path: str
    done_count: int = 0
    last_status: str | None = None
    rotations: int = 0  # rotations of this spec in this run
    seconds: float = 0.0  # their total time
    cost_usd: float | None = None  # summed where the agent reports a price
    last_note: str | None = None  # why its last rotation failed, or a warning
    tests: TestCounts | None = None  # its last test run (runner summaries)

    @property
    def verified(self) -> bool:
        return self.done_count >= MAX_COUNT


@dataclass(frozen=True)
class RunReport:
    agent: str | None = None
    started_at: float | None = None
    ended_at: float | None = None
    exit_code: int | None = None  # None: the run has not ended
    reason: str | None = None
    iteration: int = 0  # the last rotation's number
    max_iterations: int | None = None  # this run's budget
    specs: tuple[SpecReport, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)  # unknown fields of RunEnded
    costs: dict[str, Any] | None = None  # per spec, per verified spec, forecast (RunEnded)
    # Every rotation of this run, final verifications and every lane's included: the number the
    # run itself says (RunEnded's run_iteration), not a sum over specs that misses VERIFY.
    run_rotations: int = 0
    totals: RunTotals | None = None  # the run's numbers, as RunEnded says them

    @property
    def verified(self) -> int:
        return sum(1 for s in self.specs if s.verified)

    @property
    def rotations(self) -> int:
        return self.run_rotations or sum(s.rotations for s in self.specs)

    @property
    def cost_usd(self) -> float | None:
        """The run's cost: every agent call's (the final verification and judges included)."""
        if self.totals is not None:
            usage = self.totals.usage
            return round(usage.cost_usd, 6) if usage.rotations > usage.unpriced else None
        costs = [s.cost_usd for s in self.specs if s.cost_usd is not None]
        return round(sum(costs), 6) if costs else None

    @property
    def duration(self) -> float | None:
        if self.totals is not None and self.totals.wall_s is not None:
            return self.totals.wall_s
        if self.started_at is None or self.ended_at is None:
            return None
        return max(0.0, self.ended_at - self.started_at)


def rotation_cost(event: Event) -> float | None:
    """The price of a rotation where the event carries one (`cost_usd`, or `usage.cost_usd`)."""
    data = event_fields(event)
    cost = data.get("cost_usd")
    usage = data.get("usage")
    if cost is None and isinstance(usage, dict):
        # A tally whose every rotation went unpriced has a 0.0 that means "unknown", not free.
        priced = usage.get("rotations", 1) != usage.get("unpriced", 0)
        cost = usage.get("cost_usd") if priced else None
    return float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None


def _with_matrix(report: RunReport, matrix: tuple[SpecRow, ...]) -> RunReport:
    """Counters and statuses from the matrix; per-run tallies kept; specs follow the matrix."""
    known = {s.path: s for s in report.specs}
    specs = tuple(
        replace(
            known.get(row.path, SpecReport(row.path)),
            done_count=row.done_count,
            last_status=row.last_status,
            tests=row.tests,
        )
        for row in matrix
    )
    return replace(report, specs=specs)


def apply_event(report: RunReport, event: Event, now: float) -> RunReport:
    """The report after `event` (received at `now`)."""
    if isinstance(event, RunStarted):
        report = replace(report, **carried(event, RunReport), started_at=now)
        return _with_matrix(report, event.matrix)
    if isinstance(event, RotationStarted):
        return _with_matrix(replace(report, iteration=event.iteration), event.matrix)
    if isinstance(event, RotationEnded):
        report = _with_matrix(replace(report, iteration=event.iteration), event.matrix)
        report = replace(report, run_rotations=report.run_rotations + 1)
        cost = rotation_cost(event)
        specs = []
        for s in report.specs:
            if s.path != event.spec:
                specs.append(s)
                continue
            total = s.cost_usd if cost is None else round((s.cost_usd or 0.0) + cost, 9)
            specs.append(
                replace(
                    s,
                    rotations=s.rotations + 1,
                    seconds=s.seconds + max(0.0, event.elapsed),
                    cost_usd=total,
                    last_note=event.note,
                )
            )
        return replace(report, specs=tuple(specs))
    if isinstance(event, RunEnded):
        taken = carried(event, RunReport)  # the rest, but what the report derives, is extra
        known = {*taken, "run_iteration", "matrix", "usage"}
        extra = {k: v for k, v in event_fields(event).items() if k not in known}
        report = replace(
            report,
            **taken,
            ended_at=now,
            extra=extra,
            run_rotations=max(report.run_rotations, event.run_iteration),
        )
        return _with_matrix(report, event.matrix)
    return report


def with_earlier(report: RunReport, earlier: Sequence[dict[str, Any]]) -> RunReport:
    """The report of a run that continued a killed one (`--continue`, one run with it): the
    killed part's rotations, their time and cost added to each spec's, its start the run's.
    (The run's totals already cover both: its RunEnded counts from the same records.)"""
    from ralph.rules.counts import recorded
    from ralph.rules.counts.runtotals import is_call

    specs = {s.path: s for s in report.specs}
    calls = 0
    for rec in earlier:
        calls += is_call(rec) and rec.get("event") != "judge"
        spec = specs.get(recorded.text(rec.get("spec")))
        if rec.get("event") != "rotation_end" or spec is None:
            continue
        cost = recorded.money(rec.get("cost_usd"))
        specs[spec.path] = replace(
            spec,
            rotations=spec.rotations + 1,
            seconds=spec.seconds + (recorded.seconds(rec.get("seconds")) or 0.0),
            cost_usd=spec.cost_usd if cost is None else round((spec.cost_usd or 0.0) + cost, 9),
        )
    start = next((r for r in earlier if r.get("event") == "run_start"), {})
    began = recorded.epoch(start.get("ts"))
    return replace(
        report,
        specs=tuple(specs.values()),
        run_rotations=report.rotations + calls,
        started_at=began if began is not None else report.started_at,
    )


def finish(
    report: RunReport,
    *,
    exit_code: int,
    reason: str,
    now: float,
    matrix: tuple[SpecRow, ...] | None = None,
) -> RunReport:
    """A report for a run that stopped without its RunEnded event (an error, a refused run)."""
    if report.exit_code is not None:
        return report
    report = replace(report, exit_code=exit_code, reason=reason, ended_at=now)
    if report.started_at is None:
        report = replace(report, started_at=now)
    return report if matrix is None else _with_matrix(report, matrix)
