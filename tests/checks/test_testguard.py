"""checks/testguard.py: the tests may grow, never shrink, without a person's say."""

from __future__ import annotations

from pathlib import Path

from ralph.checks import testguard
from ralph.checks.acceptance import Scope
from ralph.checks.testguard import ACCEPT_HINT, SHOWN, refusal
from ralph.rules.counts.state import State
from ralph.rules.evidence.weakening import Finding

CASE = "def test_add():\n    assert add(2, 3) == 5\n"
TEST = f"from calc import add\n\n\n{CASE}"
Guard = testguard.TestGuard  # by another name: pytest collects no class named Test*
WEAK = TEST.replace("assert add(2, 3) == 5", "pass")


def project(tmp_path: Path) -> tuple[Path, Path]:
    root, store = tmp_path / "p", tmp_path / "store"
    (root / "tests").mkdir(parents=True)
    store.mkdir()
    (root / "tests" / "test_calc.py").write_text(TEST)
    return root, store


def test_a_weakened_test_is_found_until_restored(tmp_path: Path) -> None:
    root, store = project(tmp_path)
    guard = Guard(root, store)
    assert guard.findings() == []  # no baseline yet
    assert guard.start() == ([], True)  # the first run records it
    assert guard.findings() == []
    (root / "tests" / "test_calc.py").write_text(WEAK)
    found = guard.findings()
    assert [f.path for f in found] == ["tests/test_calc.py"] and "test_add" in found[0].what
    assert guard.findings(["other/**"]) == []  # a spec's own globs: not its tests
    (root / "tests" / "test_calc.py").write_text(TEST)
    assert guard.findings() == []


def test_tests_that_grow_or_move_are_no_weakening(tmp_path: Path) -> None:
    root, store = project(tmp_path)
    guard = Guard(root, store)
    guard.start()
    more = "\n\ndef test_zero():\n    assert add(0, 0) == 0\n"
    (root / "tests" / "test_calc.py").write_text(TEST + more)
    assert guard.findings(full=True) == []
    (root / "tests" / "test_calc.py").rename(root / "tests" / "test_sums.py")
    assert guard.findings(full=True) == []


def test_a_rotation_that_may_change_the_tests_moves_the_baseline(tmp_path: Path) -> None:
    root, store = project(tmp_path)
    guard = Guard(root, store)
    guard.start()
    (root / "tests" / "test_calc.py").write_text(WEAK)
    guard.after_rotation(["tests/test_calc.py"], may_change=False)
    assert guard.findings()  # seen, not taken
    guard.after_rotation(["tests/test_calc.py"], may_change=True)
    assert guard.findings() == []


def test_an_edit_between_runs_is_a_persons_unless_a_run_was_killed(tmp_path: Path) -> None:
    root, store = project(tmp_path)
    guard = Guard(root, store)
    guard.start()
    guard.finish()  # the run ended
    (root / "tests" / "test_calc.py").write_text(WEAK)
    assert Guard(root, store).start() == (["tests/test_calc.py"], True)
    assert Guard(root, store).findings() == []  # the person's: the baseline
    killed = Guard(root, store)  # this run never finishes: it was killed
    (root / "tests" / "test_calc.py").write_text(TEST.replace("== 5", "== 6"))
    assert Guard(root, store).start() == (["tests/test_calc.py"], False)
    assert killed.findings()  # nobody can tell whose it is: it waits for a person


def test_a_refusal_names_the_first_findings_and_what_a_person_can_do() -> None:
    found = [Finding(f"tests/test_{n}.py", "test removed") for n in range(SHOWN + 2)]
    reasons = refusal(found)
    assert reasons[0] == f"the tests were weakened ({ACCEPT_HINT}): tests/test_0.py: test removed"
    assert len(reasons) == SHOWN + 1 and reasons[-1] == "and 2 more changes to the tests"


def test_a_person_accepts_the_change(tmp_path: Path) -> None:
    root, store = project(tmp_path)
    Guard(root, store).start()
    scope = Scope(root, store)
    acceptor = testguard.TestAcceptor()
    assert acceptor.pending(scope, State()) == []
    (root / "tests" / "test_calc.py").write_text(WEAK)
    items = acceptor.pending(scope, State())
    assert [i.summary for i in items] == [
        "the tests, weaker than a person last left them: tests/test_calc.py"
    ]
    assert "-    assert add(2, 3) == 5" in items[0].lines  # the diff a person reads
    acceptor.accept(scope, State(), items)
    assert acceptor.pending(scope, State()) == [] and Guard(root, store).findings() == []
