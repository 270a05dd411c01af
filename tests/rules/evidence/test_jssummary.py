"""rules/evidence/jssummary.py: what a JavaScript test run did, read from its runner's summary, on
output recorded from the real runners (tests/fixtures/runners/README.md says how)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.checks.evidence import failed_tests, no_tests
from ralph.rules.evidence.jssummary import NODE, TAP
from ralph.rules.evidence.testcounts import TestCounts as Counts
from ralph.rules.evidence.testsummary import parse_summary

RUNNERS = Path(__file__).parents[2] / "fixtures" / "runners"


@pytest.mark.parametrize(
    ("name", "counts", "runner"),
    [
        # node 20's TAP (its reporter when the output is no terminal): `# pass` leaves the
        # skipped and todo tests out, and counts a describe block's tests, not the block
        ("node-test-passed.txt", (3, 0, 2), NODE),  # 1 skipped + 1 todo
        ("node-test-failed.txt", (3, 1, 2), NODE),
        ("node-test-no-tests.txt", (0, 0, 0), NODE),
        # its spec reporter (on a terminal, or --test-reporter=spec): the same counters after U+2139
        ("node-test-spec-failed.txt", (3, 1, 2), NODE),
        # tape 5: counts assertions; a skipped or todo assertion is in `# pass`
        ("tape-passed.txt", (3, 0, 1), TAP),
        ("tape-failed.txt", (2, 1, 3), TAP),  # a SKIP and a TODO assertion, a test skipped
        ("jest-passed.txt", (3, 0, 2), "jest"),  # 1 skipped + 1 todo
        ("jest-failed.txt", (2, 1, 2), "jest"),
        ("jest-no-tests.txt", (0, 0, 0), "jest"),
        ("vitest-passed.txt", (3, 0, 2), "vitest"),
        ("vitest-failed.txt", (2, 1, 2), "vitest"),
        ("vitest-no-tests.txt", (0, 0, 0), "vitest"),
        ("mocha-passed.txt", (2, 0, 2), "mocha"),  # it.skip, and an it with no function
        ("mocha-failed.txt", (2, 1, 2), "mocha"),
    ],
)
def test_each_runner_summary(name: str, counts: tuple[int, int, int], runner: str) -> None:
    found = parse_summary((RUNNERS / name).read_text())
    assert found is not None
    assert (found.passed, found.failed, found.skipped, found.runners) == (*counts, (runner,))


def test_mocha_without_test_files_prints_no_summary() -> None:
    # it exits 1: the command's exit code refuses it
    assert parse_summary((RUNNERS / "mocha-no-tests.txt").read_text()) is None


def test_a_node_run_of_no_test_ran_no_test() -> None:
    found = parse_summary((RUNNERS / "node-test-no-tests.txt").read_text())
    assert found is not None
    assert no_tests(found) == "ran no test (node --test: 0 passed, 0 failed, 0 skipped)"


def test_a_tap_failure_fails_whatever_the_exit_code() -> None:
    found = parse_summary((RUNNERS / "tape-failed.txt").read_text())
    assert found is not None
    assert failed_tests(found, 0) == (
        "its tests failed (tap: 2 passed, 1 failed, 3 skipped) though it exited 0"
    )


def test_tap_without_a_summary_is_read_by_its_test_points() -> None:
    """bats and hand-made producers print the plan and the points only; a subtest's point is
    indented and counted by its parent's."""
    stream = (
        "TAP version 13\n1..4\nok 1 - adds\n    ok 1 - inner\nnot ok 2 - subtracts\n"
        "ok 3 - later # SKIP not yet\nnot ok 4 - some day # TODO\n"
    )
    assert parse_summary(stream) == Counts(1, 1, 2, (TAP,))
    assert parse_summary(stream.replace("not ok 2", "ok 2") + "Bail out! db down\n") == Counts(
        2, 1, 2, (TAP,)
    )
    # no plan: no TAP, whatever says ok
    assert parse_summary("ok 1 - adds\nok\n") is None
    assert parse_summary("1..3\n") is None


def test_a_later_tap_summary_never_hides_an_earlier_failure() -> None:
    """`node a.js; node b.js` (tape in two processes): the last run's counts, the first
    run's failure; a summary a test printed before the real one adds no passes."""
    failed = (RUNNERS / "tape-failed.txt").read_text()
    passed = (RUNNERS / "tape-passed.txt").read_text()
    both = parse_summary(failed + passed)
    assert both is not None and (both.passed, both.failed, both.skipped) == (3, 1, 1)
    printed = "# tests 100\n# pass  100\n\n" + passed
    assert parse_summary(printed) == parse_summary(passed)


def test_mocha_summaries_in_one_output() -> None:
    failed = (RUNNERS / "mocha-failed.txt").read_text()
    passed = (RUNNERS / "mocha-passed.txt").read_text()
    assert parse_summary(failed + passed) == Counts(2, 1, 2, ("mocha",))
