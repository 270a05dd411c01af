"""checks/mutation.py: mutants of the Python changed since the run began, at the decisive DONE
only; the test runs played in-process through the gate's process seam. (The mutants' verdicts
need real test runs: tests/e2e/test_mutation_check.py.)"""

from __future__ import annotations

from pathlib import Path

from ralph.checks.mutation import SKIPPED
from ralph.checks.result import CheckResult
from ralph.rules.state import SpecState
from tests.checks.test_gate import FAILED, PASSED, Rig, rig, spec

A = "specs/a.spec.md"
FRONT = "test_command: pytest -q\nchecks: [{name: mutants, method: mutation}]"
DECISIVE = SpecState(A, done_count=2)  # the DONE that would reach 3/3


def mutants(r: Rig, row: SpecState, tree: str = "t1") -> CheckResult:
    verdict = r.done(row=row, tree=tree)
    assert verdict.gate is not None
    return verdict.gate.results[-1]


def test_it_runs_only_at_the_decisive_done(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec(FRONT)}, {"pytest -q": PASSED})
    early = mutants(r, SpecState(A, done_count=1))
    assert early.skipped and early.summary == SKIPPED and r.commands.lines() == ["pytest -q"]
    assert not mutants(r, DECISIVE, "t2").skipped


def test_no_python_changed_since_the_run_began_is_refused(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec(FRONT), "calc.py": "VALUE = 1\n"}, {"pytest -q": PASSED})
    r.write("notes.txt", "words\n")
    result = mutants(r, DECISIVE)
    assert not result.passed and "no Python code changed since the run began" in result.summary
    assert "notes.txt" in result.summary  # data, until a traced run sees Python compile it


def test_tests_that_fail_without_a_mutant_prove_nothing(tmp_path: Path) -> None:
    plays = {"pytest -q": PASSED}
    r = rig(tmp_path, {A: spec(FRONT), "calc.py": "VALUE = 1\n"}, plays)
    r.write("calc.py", "VALUE = 2\n")
    runs = iter([PASSED, FAILED])  # the spec's test command passes, then the traced run fails
    r.commands.plays = {"pytest -q": lambda request: next(runs)}
    result = mutants(r, DECISIVE)
    assert not result.passed and result.summary.startswith("the tests fail without any mutant")
    traced = r.commands.ran[-1]
    assert traced.cwd != r.commands.ran[0].cwd  # in a room of its own
    assert traced.env["RALPH_CHECK"] == "mutants"


def test_a_result_stands_while_the_tree_is_unchanged(tmp_path: Path) -> None:
    r = rig(tmp_path, {A: spec(FRONT)}, {"pytest -q": PASSED})
    first = mutants(r, DECISIVE)
    again = mutants(r, DECISIVE)
    assert not first.cached and again.cached and again.summary == first.summary
