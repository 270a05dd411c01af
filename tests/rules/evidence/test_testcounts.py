"""rules/evidence/testcounts.py: how many tests a run passed, failed and skipped."""

from __future__ import annotations

from ralph.rules.counts.state import SpecState, State
from ralph.rules.evidence.testcounts import TestCounts as Counts


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
