"""rules/counts/toldcounts.py: the counters the worklog's records tell of a run that never said its
end, and where they stop short of state.json."""

from __future__ import annotations

from typing import Any

from ralph.rules.counts.state import SpecState, State
from ralph.rules.counts.toldcounts import moved, told

A, B = "specs/a.spec.md", "specs/b.spec.md"
START: dict[str, Any] = {"event": "run_start", "counts": {A: 3, B: 0}}


def test_the_records_of_a_killed_run_are_replayed_to_its_counters() -> None:
    records = [
        {"event": "run_end", "counts": {A: 9}},  # an earlier run's: not this one's
        START,
        {"event": "rotation_start", "spec": B},
        {"event": "rotation_end", "spec": B, "done_count": 1, "downgraded": [A]},
    ]
    assert told(records) == {A: 2, B: 1}
    again = [*records, {"event": "reconciled", "counts": {A: 2, B: 2}}]
    assert told(again) == {A: 2, B: 2}
    merged = [*again, {"event": "lane_merge", "spec": B, "downgraded": [A]}]
    assert told(merged) == {A: 2, B: 2}  # a was at 2/3 already
    held = [*merged, {"event": "lane_conflict", "spec": B}]
    assert told(held) == {A: 2, B: 0}
    failed = [START, {"event": "verification", "transition": "failed", "downgraded": [A]}]
    assert told(failed) == {A: 2, B: 0}


def test_a_run_that_said_its_end_or_records_no_counts_has_nothing_to_reconcile() -> None:
    assert told([START, {"event": "run_end", "counts": {A: 3, B: 0}}]) is None
    assert told([{"event": "run_start"}]) is None  # a worklog from before counts were kept
    assert told([]) is None


def test_moved_names_each_counter_the_records_tell_otherwise() -> None:
    state = State(specs=(SpecState(A, done_count=1), SpecState(B)))
    assert moved({A: 0, B: 0}, state) == {A: (0, 1)}
    assert moved({A: 1}, state) == {}  # a spec the records never named is at 0/3
