"""checks/mutation.py: mutants of the Python changed since the run began, at the decisive DONE
only; the test runs played in-process through the gate's process seam. (The mutants' verdicts
need real test runs: tests/e2e/test_mutation_check.py.)"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

from ralph.checks.mutation import SKIPPED, STILLBORN
from ralph.checks.result import CheckResult
from ralph.process.request import ProcessRequest
from ralph.rules.counts.state import SpecState
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


def test_mutants_that_only_break_the_collection_do_not_count(tmp_path: Path) -> None:
    """By pytest's own record: a mutant whose run could not collect the tests (an import that
    fails) is no evidence the tests check the code; when every mutant is one, a refusal.
    The control: a mutant the tests fail on, collected as the unmutated code is, counts."""
    from ralph.checks import runrecord

    def record(request: ProcessRequest, *, errors: int, collected: int) -> None:
        assert request.room is not None
        counts = {"passed": collected, "failed": 0, "skipped": 0}
        data = {"stage": "ended", "collected": collected, "ran": collected, "errors": errors}
        data.update(counts)
        (runrecord.folder(request.room) / "session-1.json").write_text(json.dumps(data))

    def plays(broken: bool) -> Callable[[ProcessRequest], tuple[int, str]]:
        def play(request: ProcessRequest) -> tuple[int, str]:
            assert request.room is not None
            if (request.room / "calc.py").read_text() == "VALUE = 2\n":  # unmutated
                record(request, errors=0, collected=1)
                return PASSED
            record(request, errors=int(broken), collected=0 if broken else 1)
            return FAILED

        return play

    for broken, passed in ((True, False), (False, True)):
        r = rig(tmp_path / str(broken), {A: spec(FRONT), "calc.py": "VALUE = 1\n"}, {})
        r.write("calc.py", "VALUE = 2\n")
        r.commands.plays = {"pytest -q": plays(broken)}
        result = mutants(r, DECISIVE)
        assert result.passed is passed, result.summary
        if broken:
            assert result.summary == STILLBORN
        else:
            assert result.summary.startswith("score 1.00")
