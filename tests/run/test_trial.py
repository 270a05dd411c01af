"""run/trial.py: the final verification as a rotation, its two parts called directly (`attempt`:
the verifier, then ralph's own checks; `settle`: the tree taken, ralph's verdict as a value),
with the scripted agent in-process as the verifier (tests/fakes/scripted_inline.py). Its fold is
tested in tests/run/test_fold.py, the decision around it in tests/run/test_verification.py."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from ralph.process.allowlist import AllowList
from ralph.process.launcher import Launcher
from ralph.process.request import Confinement
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import State, number_next
from ralph.run import trial
from ralph.run.events import RotationStarted
from ralph.run.loop import SpecRun
from ralph.run.turn import Outcome, Trial
from ralph.store.snapshots.snapshot import Snapshot
from tests.conftest import Project
from tests.fakes.commands import Commands
from tests.run.test_rotation import JUDGED, PLAIN, opened

A = "specs/a.spec.md"


def verify(run: SpecRun, specs: list[Spec], before: Snapshot) -> tuple[Trial, Outcome, State]:
    """One final verification: numbered as its scheduler numbers it, tried, settled."""
    state = replace(number_next(run.state), current_spec=None)
    agent = run.shared.opts.pool[0].agent
    tried = trial.attempt(run.rotation, state, specs, agent, agent)
    return tried, trial.settle(run.rotation, tried, before), state


def steps(verify_step: dict[str, Any]) -> dict[str, Any]:
    return {"*": [{"signal": "DONE"}], "VERIFY": [verify_step]}


def test_a_verifier_s_pass_on_an_unchanged_tree_verifies(project: Project) -> None:
    script = steps({"signal": "VERIFY_PASS"})
    with opened(project, PLAIN, script) as (run, specs, before, events):
        tried, verified, state = verify(run, specs, before)
    assert (tried.iteration, tried.attempt, tried.agent, tried.specs) == (1, 1, "scripted", (A,))
    assert (tried.tag, tried.failed_checks, tried.interrupted) == ("VERIFY_PASS", (), False)
    assert trial.verdict_of(verified).passed and verified.ended > 0
    assert project.counts() == {A: 0}  # nothing folded, nothing saved: its scheduler does
    started = [e for e in events if isinstance(e, RotationStarted)]
    assert [(e.spec, e.mode, e.iteration) for e in started] == [("(all specs)", "VERIFY", 1)]
    assert state.last_rotation == 1


def test_a_verifier_s_fail_is_ralph_s_fail(project: Project) -> None:
    with opened(project, PLAIN, steps({"signal": "VERIFY_FAIL"})) as (run, specs, before, _):
        _, verified, _ = verify(run, specs, before)
    assert trial.verdict_of(verified).reasons == ("the verifier answered VERIFY_FAIL",)


def test_a_verifier_that_changes_files_fails_whatever_it_says(project: Project) -> None:
    script = steps({"write": {"a.txt": "fixed\n"}, "signal": "VERIFY_PASS"})
    with opened(project, PLAIN, script) as (run, specs, before, _):
        _, verified, _ = verify(run, specs, before)
    assert not trial.verdict_of(verified).passed
    assert trial.verdict_of(verified).reasons == ("the verifier changed 1 tracked file(s): a.txt",)
    assert verified.taken.changes.paths == ("a.txt",)


@pytest.mark.slow  # the semantic check's clean room starts Python
def test_what_the_checks_judges_spent_comes_back_in_the_trial(project: Project) -> None:
    with opened(project, JUDGED, steps({"signal": "VERIFY_PASS"})) as (run, specs, before, _):
        tried, verified, _ = verify(run, specs, before)
    assert [(j.iteration, j.spec, j.agent) for j in tried.judged] == [(1, A, "scripted")]
    assert verified.judged == tried.judged  # on to fold_verification, which counts it


def test_no_verdict_is_no_pass(project: Project) -> None:
    with opened(project, PLAIN, steps({"say": "looks fine"})) as (run, specs, before, _):
        tried, verified, _ = verify(run, specs, before)
    assert tried.tag is None
    assert trial.verdict_of(verified).reasons == ("the verifier gave no verdict (last tag: none)",)


@pytest.mark.parametrize(
    ("answer", "passed"), [((0, "3 passed\n"), True), ((1, "1 failed\n"), False)]
)
def test_ralph_yaml_s_test_command_runs_by_the_run_s_launcher(
    project: Project, answer: tuple[int, str], passed: bool
) -> None:
    fake = Commands({"make test": answer})  # played in-process: no process starts
    launcher = Launcher(Confinement(allow=AllowList(frozenset({"MINE"}))), fake)
    yaml, script = "test_command: make test\n", steps({"signal": "VERIFY_PASS"})
    with opened(project, PLAIN, script, yaml=yaml, launcher=launcher) as (run, specs, start, _):
        _, verified, _ = verify(run, specs, start)
    (request,) = fake.ran
    assert request.argv[-1] == "make test" and request.confined is launcher.confined
    # in the clean room, as every check that decides (checks/place.py), not in the tree
    assert request.room == request.cwd != project.root and request.sealed
    assert trial.verdict_of(verified).passed is passed
    if not passed:
        why = "`make test` (test_command (ralph.yaml)) failed: exit code 1, expected 0"
        assert trial.verdict_of(verified).reasons[0].startswith(why)
