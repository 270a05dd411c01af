"""rules/counts/runtotals.py: a run's numbers, computed once."""

from __future__ import annotations

from ralph.rules.counts.runtotals import run_totals
from tests.sample_records import rotation


def test_a_judge_and_a_final_verification_count_in_the_totals() -> None:
    records = [
        {"ts": 1.0, "event": "run_start"},
        *rotation(1, "a", 1, 100),
        {
            "ts": 2.0,
            "event": "judge",
            "iteration": 1,
            "spec": "a",
            "input_tokens": 5,
            "output_tokens": 1,
            "cost_usd": 0.5,
        },
        {"ts": 3.0, "event": "verification", "transition": "started", "iteration": 2},
        {"ts": 4.0, "event": "verification", "transition": "answered", "iteration": 2},
        {
            "ts": 5.0,
            "event": "verification",
            "transition": "passed",
            "iteration": 2,
            "input_tokens": 7,
            "output_tokens": 0,
            "cost_usd": 0.25,
            "agent_s": 1.0,
            "checks_s": 2.0,
        },
    ]
    totals = run_totals(records)
    assert totals.rotations == 2 and totals.usage.rotations == 3  # three calls, two rotations
    assert totals.usage.input_tokens == 112 and round(totals.usage.cost_usd, 6) == 0.76
    assert round(totals.checks_s, 3) == 2.1
    assert totals.wall_s == 4.0  # from its start to its last record


def test_a_continued_run_counts_both_parts_and_not_the_time_nobody_ran() -> None:
    def end(ts: float, tokens: int) -> dict[str, object]:
        return {"ts": ts, "event": "rotation_end", "input_tokens": tokens, "output_tokens": 0}

    records = [
        {"ts": 100.0, "event": "run_start"},
        end(105.0, 100),
        {"ts": 110.0, "event": "rotation_start"},  # killed in this rotation
        {"ts": 1000.0, "event": "run_start", "continues": True},
        end(1010.0, 50),
        {"ts": 1020.0, "event": "rotation_start"},
    ]
    totals = run_totals(records)
    assert totals.rotations == 2 and totals.usage.tokens == 150
    assert totals.wall_s == 10.0 + 20.0  # each part from its start; the gap is nobody's
    # as its end said it, its first part included
    ended = [*records, {"ts": 1030.0, "event": "run_end", "totals": {"seconds": 31.0}}]
    assert run_totals(ended).wall_s == 31.0
    # control: a run that does not continue is one of its own: a job sums each run's time
    job = [*ended, {"ts": 2000.0, "event": "run_start"}, {"ts": 2005.0, "event": "wait"}]
    assert run_totals(job).wall_s == 31.0 + 5.0


def test_the_bar_s_time_counts_in_ralph_s_checks() -> None:
    start = {"ts": 1.0, "event": "run_start"}
    bar = {"ts": 2.0, "event": "bar", "command": "pytest -q", "seconds": 1.5}
    without = run_totals([start, *rotation(1, "a", 1, 100)])
    with_bar = run_totals([start, bar, *rotation(1, "a", 1, 100)])
    assert round(with_bar.checks_s - without.checks_s, 3) == 1.5
    assert with_bar.rotations == without.rotations  # the bar is no rotation
