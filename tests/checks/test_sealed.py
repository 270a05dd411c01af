"""What the agent learns of a sealed run (checks/sealed.judged): counts, never output, names
or the exit code the code under test chose."""

from __future__ import annotations

from ralph.checks.result import CheckResult
from ralph.checks.sealed import HINT_RUN, judged
from ralph.rules.evidence import testcounts

SECRET = "FAIL: test_secret_name (tests.test_hidden.T) AssertionError: 42 != 7"


def ran(passed: bool, summary: str, counts: testcounts.TestCounts | None) -> CheckResult:
    return CheckResult("sealed tests", "external", passed, True, summary, SECRET, counts=counts)


def test_failures_are_counted_and_nothing_else_is_said() -> None:
    out = judged(ran(False, "exit code 1, expected 0", testcounts.TestCounts(3, 2, 0)))
    assert (out.passed, out.summary, out.output, out.counts) == (False, "2 of 5 failed", "", None)


def test_a_timeout_and_an_exit_code_the_code_chose() -> None:
    timed = judged(ran(False, "timed out after 9 s (its process tree was killed)", None))
    assert timed.summary == "timed out after 9 s"
    chosen = judged(ran(False, "exit code 137, expected 0", None))
    assert not chosen.passed and "137" not in chosen.summary


def test_a_run_that_executed_no_test_ran_none_of_them() -> None:
    """The room holds no test file but the sealed ones: none executed is none of them."""
    out = judged(ran(True, "exit code 0", testcounts.TestCounts(0, 0, 2)))
    assert (out.passed, out.summary) == (False, HINT_RUN)
    assert judged(ran(True, "exit code 0", testcounts.TestCounts(3, 0, 0))).passed
