"""rules/evidence/runrecord.py: pytest's own record of a run, judged."""

from __future__ import annotations

from ralph.rules.evidence.runrecord import STOPPED, UNREADABLE, judged
from ralph.rules.evidence.testcounts import TestCounts as Counts


def record(stage: str = "ended", collected: int | None = 3, **n: int) -> dict[str, object]:
    counts = {"passed": 3, "failed": 0, "skipped": 0, "ran": 3, "errors": 0, **n}
    return {"stage": stage, "collected": collected, "exitstatus": 0, **counts}


def test_an_ended_session_is_the_run_s_counts() -> None:
    got = judged([record(passed=2, skipped=1)])
    assert got is not None and got.refusal is None and not got.broken
    assert got.counts == Counts(2, 0, 1, ("pytest",))


def test_no_session_is_no_record() -> None:
    assert judged([]) is None


def test_a_session_that_never_ended_is_refused_whatever_it_counted() -> None:
    """os._exit(0) in a test after printing "3 passed": the session never ended."""
    got = judged([record("collected", passed=0, ran=0)])
    assert got is not None and got.refusal == STOPPED.format(stage="it had collected")
    started = judged([record("started", None, passed=0, ran=0)])
    assert started is not None and started.refusal is not None and started.broken


def test_fewer_tests_run_to_their_end_than_collected_with_none_failed_is_refused() -> None:
    got = judged([record(collected=5)])
    assert got is not None and got.refusal is not None and "ran 3 of the 5" in got.refusal
    failed = judged([record(collected=5, failed=1, passed=2)])  # `-x`: the failure decides
    assert failed is not None and failed.refusal is None and failed.counts.failed == 1


def test_collection_errors_count_as_failures_and_mark_the_run_broken() -> None:
    got = judged([record(errors=1, passed=0, ran=0, collected=0)])
    assert got is not None and got.broken and got.counts.failed == 1


def test_sessions_add_up_and_an_unreadable_one_is_refused() -> None:
    got = judged([record(), record(collected=2, passed=2, ran=2)])
    assert got is not None and got.counts.passed == 5 and got.collected == 5
    bad = judged([record(), None])
    assert bad is not None and bad.refusal == UNREADABLE
    forged = judged([record(passed=-1)])
    assert forged is not None and forged.refusal == UNREADABLE


def test_a_session_that_only_collected_says_so() -> None:
    from ralph.rules.evidence.runrecord import COLLECT_ONLY, judged

    only = {"stage": "ended", "collected": 4, "ran": 0, "errors": 0, "passed": 0}
    record = judged([{**only, "failed": 0, "skipped": 0, "collect_only": True}])
    assert record is not None and record.refusal == COLLECT_ONLY
    # control: the same numbers without it were stopped early
    record = judged([{**only, "failed": 0, "skipped": 0}])
    assert record is not None and record.refusal is not None and "ran 0 of the 4" in record.refusal
