"""Test runs are evidence: each runner's summary, as recorded from the real runner
(tests/fixtures/runners), gives passed / failed / skipped; a run of no test fails; a drop
from the best run is named."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

import pytest

from ralph.checks.bar import to_measure
from ralph.checks.evidence import drop, failed_tests, no_tests, run_counts, vanished
from ralph.rules.spec import Spec
from ralph.rules.state import SpecState, State
from ralph.rules.testcounts import TestCounts as Counts
from ralph.rules.testcounts import bar_of, merged_bar
from ralph.rules.testsummary import parse_summary
from ralph.specs.frontmatter import parse_front_matter

RUNNERS = Path(__file__).parent / "fixtures" / "runners"


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
        ("jest-passed.txt", (3, 0, 2)),  # 1 skipped + 1 todo
        ("jest-failed.txt", (2, 1, 2)),
        ("jest-no-tests.txt", (0, 0, 0)),
        ("vitest-passed.txt", (3, 0, 2)),
        ("vitest-failed.txt", (2, 1, 2)),
        ("vitest-no-tests.txt", (0, 0, 0)),
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


def test_the_counts_as_the_panel_and_the_final_matrix_show_them() -> None:
    from rich.console import Console

    from ralph.run.events import SpecRow
    from ralph.ui.panel import matrix_table
    from ralph.ui.statustable import tests_text

    assert tests_text(None) == ""
    assert tests_text(Counts(12)) == " 12 passed"
    assert tests_text(Counts(12, 1, 2)) == " 12 passed 1 failed 2 skipped"
    row = SpecRow("specs/a.spec.md", 3, "DONE", False, Counts(12, 0, 2))
    console = Console(width=100, record=True, color_system=None)
    console.print(matrix_table([row], current=None, limit=None))
    assert "DONE 12 passed 2 skipped" in console.export_text()


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


def test_which_specs_have_their_bar_measured() -> None:
    def spec(path: str, command: str | None) -> Spec:
        text = (f"---\ntest_command: {command}\n---\n" if command else "") + "# x\n"
        return Spec(path, text, f"hash of {text}")

    specs = [spec("a.spec.md", "make test"), spec("b.spec.md", "make test"), spec("c.md", None)]
    metas = [(s, parse_front_matter(s.path, s.text)) for s in specs]
    fresh = State(specs=tuple(SpecState(s.path) for s in specs))
    assert to_measure(metas, fresh, tests_edited=False) == {
        ("make test", 900.0): ["a.spec.md", "b.spec.md"]  # one run for both
    }
    bar = Counts(4)
    a, b = (SpecState(s.path, best_tests=bar, last_hash=s.content_hash) for s in specs[:2])
    kept = State(specs=(a, replace(b, last_hash="changed by a person")))
    assert to_measure(metas, kept, tests_edited=False) == {("make test", 900.0): ["b.spec.md"]}
    assert len(to_measure(metas, kept, tests_edited=True)[("make test", 900.0)]) == 2


def test_a_measurement_without_summary_keeps_the_bar_unless_a_person_changed_the_spec() -> None:
    from ralph.checks.bar import Measured, with_bars

    bar = Counts(4, 0, 0, ("pytest",))
    state = State(specs=(SpecState("a.spec.md", best_tests=bar, tests=bar),))
    none = [Measured("make check", ("a.spec.md",), None, "exit code 0")]
    assert with_bars(state, none, fresh=False) == state  # os._exit(0) cannot lower it
    cleared = with_bars(state, none, fresh=False, changed=["a.spec.md"]).specs[0]
    assert (cleared.best_tests, cleared.tests) == (None, None)  # the person's new command
    measured = [Measured("pytest", ("a.spec.md",), Counts(2, 1, 0), "exit code 1")]
    assert with_bars(state, measured, fresh=False).specs[0].best_tests == bar  # never falls
    assert with_bars(state, measured, fresh=True).specs[0].best_tests == Counts(3)


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
