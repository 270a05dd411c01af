"""checks/evidence.py: test runs are evidence, not exit codes."""

from __future__ import annotations

import os
import time
from pathlib import Path

from ralph.checks.evidence import drop, no_tests, run_counts, vanished
from ralph.rules.evidence.testcounts import TestCounts as Counts
from ralph.rules.evidence.testcounts import bar_of, merged_bar

RUNNERS = Path(__file__).parents[1] / "fixtures" / "runners"


def test_a_junit_report_written_by_the_run(tmp_path: Path) -> None:
    report = tmp_path / "junit.xml"
    report.write_text((RUNNERS / "pytest-junit.xml").read_text())
    found = run_counts("", report, time.time() - 1)
    assert isinstance(found, Counts)
    assert (found.passed, found.failed, found.skipped) == (5, 2, 3)
    # one written before the command started is a previous run's
    old = time.time() - 3600
    os.utime(report, (old, old))
    assert run_counts("", report, time.time()) == "its report junit.xml was not written by this run"
    assert run_counts("", tmp_path / "none.xml", 0) == "it wrote no report none.xml"
    report.write_text("<testsuites><testsuite tests='x'")
    why = run_counts("", report, 0)
    assert isinstance(why, str) and "cannot be read as JUnit XML" in why


def test_a_run_of_no_test_fails_and_a_drop_is_named() -> None:
    assert no_tests(Counts(runners=("pytest",))) == (
        "ran no test (pytest: 0 passed, 0 failed, 0 skipped)"
    )
    assert no_tests(Counts(0, 0, 4, ("jest",))) is not None  # all skipped
    assert no_tests(Counts(1)) is None
    best = Counts(10, 0, 1)
    assert drop(Counts(9, 0, 1), best) == "fewer tests passed than in the best run (9 < 10)"
    assert drop(Counts(12, 0, 2), best) == "more tests skipped than in the best run (2 > 1)"
    assert drop(Counts(10, 0, 1), best) is None
    assert drop(Counts(11, 0, 0), best) is None
    assert drop(Counts(0), None) is None


def test_a_summary_that_vanished_fails() -> None:
    before = Counts(4, 0, 0, ("pytest",))
    assert vanished(None, before) is not None
    assert "printed no test summary, though it printed one before (4 passed" in (
        vanished(None, before) or ""
    )
    assert vanished(Counts(4), before) is None
    assert vanished(None, None) is None  # never seen one: nothing to miss


def test_the_bar_counts_every_test_that_ran_and_never_falls_without_a_person() -> None:
    measured = Counts(3, 1, 2, ("pytest",))
    assert bar_of(measured) == Counts(4, 0, 2, ("pytest",))
    assert drop(Counts(3, 0, 2), bar_of(measured)) is not None  # the failing one deleted
    assert drop(Counts(4, 0, 2), bar_of(measured)) is None  # fixed
    higher = Counts(6, 0, 1, ("pytest",))
    assert merged_bar(higher, measured, fresh=False) == Counts(6, 0, 1, ("pytest",))
    assert merged_bar(higher, measured, fresh=True) == Counts(4, 0, 2, ("pytest",))
    assert merged_bar(None, measured, fresh=False) == Counts(4, 0, 2, ("pytest",))
