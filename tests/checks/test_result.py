"""checks/result.py: one check's result, a gate's verdict, and the cache by tree state."""

from __future__ import annotations

from ralph.checks.result import CheckCache, CheckResult, GateResult
from ralph.rules.evidence.testcounts import TestCounts as Counts

FAILED = CheckResult("tests", "external", False, summary="exit code 1", output="E assert 1\n")
OPTIONAL = CheckResult("docs", "external", False, False, summary="exit code 2")
SKIPPED = CheckResult("judged", "semantic", False, summary="skipped", skipped=True)


def test_only_a_required_check_that_ran_and_failed_refuses() -> None:
    gate = GateResult(False, (FAILED, OPTIONAL, SKIPPED))
    assert gate.failed == (FAILED,)
    assert gate.reasons == ("tests: exit code 1",)
    assert gate.warnings == ("docs: exit code 2",)
    assert gate.report() == "- tests (external): exit code 1\n      E assert 1"


def test_counts_add_up_the_checks_that_ran() -> None:
    one = CheckResult("a", "external", True, counts=Counts(2, 0, 1, ("pytest",)))
    two = CheckResult("b", "external", True, counts=Counts(3, 1, 0, ("pytest",)))
    skipped = CheckResult("c", "external", False, skipped=True, counts=Counts(9, 0, 0, ()))
    assert GateResult(True, (one, two, skipped)).counts == Counts(5, 1, 1, ("pytest",))
    assert GateResult(True, (FAILED,)).counts is None


def test_the_cache_keeps_a_result_by_tree_and_never_an_interrupted_one() -> None:
    cache = CheckCache()
    cache.put("t1", "k", FAILED)
    assert cache.get("t1", "k") == FAILED
    assert cache.get("t2", "k") is None and cache.get(None, "k") is None
    cache.put(None, "n", FAILED)
    assert cache.entries.keys() == {("t1", "k")}
    cache.put("t1", "i", CheckResult("x", "external", False, interrupted=True))
    assert cache.get("t1", "i") is None


def test_a_result_as_the_worklog_has_it() -> None:
    ran = CheckResult("a", "external", True, counts=Counts(2, 0, 0, ("pytest",)), seconds=0.12345)
    data = ran.to_json()
    assert data["seconds"] == 0.123 and "tests" in data
    assert "tests" not in FAILED.to_json() and "output" not in FAILED.to_json()
