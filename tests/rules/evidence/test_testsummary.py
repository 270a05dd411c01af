"""rules/evidence/testsummary.py: what a test run did, read from the runner's own summary (pure)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.checks.evidence import failed_tests, no_tests
from ralph.rules.evidence.testcounts import TestCounts as Counts
from ralph.rules.evidence.testsummary import parse_summary

RUNNERS = Path(__file__).parents[2] / "fixtures" / "runners"


@pytest.mark.parametrize(
    ("name", "counts"),
    [
        ("pytest-passed.txt", (2, 0, 0)),
        ("pytest-q-failed.txt", (5, 2, 3)),  # 2 skipped + 1 xfailed
        ("pytest-q-x.txt", (1, 1, 0)),
        ("pytest-q-collect-error.txt", (0, 1, 0)),
        ("pytest-q-no-tests.txt", (0, 0, 0)),
        ("pytest-q-deselected.txt", (0, 0, 0)),
        ("unittest-passed-v.txt", (2, 0, 0)),
        ("unittest-failed.txt", (1, 1, 1)),
        ("unittest-error.txt", (1, 1, 0)),
        ("unittest-no-tests.txt", (0, 0, 0)),
        ("go-v-passed.txt", (3, 0, 1)),
        ("go-v-failed.txt", (2, 1, 1)),
        ("go-json-failed.txt", (2, 1, 1)),
        ("go-no-tests-to-run.txt", (0, 0, 0)),
        ("go-no-test-files.txt", (0, 0, 0)),
        ("cargo-passed.txt", (4, 0, 1)),  # unit tests, an integration test, doc-tests
        ("cargo-failed.txt", (2, 1, 1)),
        ("cargo-filtered-none.txt", (0, 0, 0)),
        ("pytest-q-failed-exit0.txt", (4, 1, 0)),  # `pytest ... || true`: exit 0
        ("pytest-co-q.txt", (0, 0, 0)),  # --collect-only: listed, not run
        ("pytest-collect-only.txt", (0, 0, 0)),  # with unittest TestCases among them
    ],
)
def test_each_runner_summary(name: str, counts: tuple[int, int, int]) -> None:
    found = parse_summary((RUNNERS / name).read_text())
    assert found is not None
    assert (found.passed, found.failed, found.skipped) == counts


def test_go_without_v_gives_no_counts_and_other_output_none() -> None:
    # `go test` without -v prints no counts of a passing run: unknown, not zero
    assert parse_summary((RUNNERS / "go-passed.txt").read_text()) is None
    assert parse_summary("All checks passed!\n") is None
    assert parse_summary("") is None


def test_several_runners_in_one_output_add_up() -> None:
    both = (RUNNERS / "pytest-passed.txt").read_text() + (RUNNERS / "jest-passed.txt").read_text()
    found = parse_summary(both)
    assert found is not None
    assert (found.passed, found.skipped, found.runners) == (5, 2, ("pytest", "jest"))


def test_a_collect_only_run_ran_no_test() -> None:
    for name in ("pytest-co-q.txt", "pytest-collect-only.txt"):
        found = parse_summary((RUNNERS / name).read_text())
        assert found is not None
        assert no_tests(found) == "ran no test: it only collected them (pytest --collect-only)"
    # `--co -qq` prints no summary line at all: what the start's bar catches (`vanished`)
    assert parse_summary((RUNNERS / "pytest-co-qq.txt").read_text()) is None


def test_a_failure_in_the_summary_fails_whatever_the_exit_code() -> None:
    found = parse_summary((RUNNERS / "pytest-q-failed-exit0.txt").read_text())
    assert found is not None
    assert failed_tests(found, 0) == (
        "its tests failed (pytest: 4 passed, 1 failed, 0 skipped) though it exited 0"
    )
    assert failed_tests(Counts(4, 0, 1, ("pytest",)), 0) is None


def test_a_later_summary_never_hides_an_earlier_failure() -> None:
    """`pytest unit || true; pytest other`: the first run's failure refuses; a line the tests
    print adds no passes."""
    failed = (RUNNERS / "pytest-q-failed-exit0.txt").read_text()
    passed = (RUNNERS / "pytest-passed.txt").read_text()
    found = parse_summary(failed + passed)
    assert found is not None and (found.passed, found.failed) == (2, 1)
    assert parse_summary("100 passed in 0.01s\n" + passed) == parse_summary(passed)
    unittest = (RUNNERS / "unittest-failed.txt").read_text()
    ok = (RUNNERS / "unittest-passed-v.txt").read_text()
    both = parse_summary(unittest + ok)
    assert both is not None and both.failed == 1
