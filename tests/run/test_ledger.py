"""The order of a rotation's writes (run/ledger.py, run/trial.py), in-process: the state that
counts a rotation (the truth) is saved before its record is appended, for a spec's rotation and
for the final verification alike (docs/explanation/worklog.md: a `kill -9` between the two
leaves records that stop short of the state, never ahead of it: a counted DONE is never lost,
and the run that takes over records the state's counters, run/takeover.py). A watcher sees
each record as it is written and reads state.json then.
And state.json has one writer, which never writes the same state twice."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from ralph.agents.member import Member
from ralph.errors import ExitCode
from ralph.rules.counts.state import State
from ralph.run.facts import Fact, RotationRecorded, VerificationEnded
from ralph.run.ledger import StateFile
from ralph.run.start import run_loop
from ralph.store.records.state import load_state
from tests.conftest import Project
from tests.fakes.scripted_inline import inline_agent
from tests.run.test_options import run_options

SPEC = "specs/a.spec.md"


def test_each_record_comes_after_the_state_that_counts_it(project: Project) -> None:
    project.git("init", "-q", "-b", "main")
    project.write({SPEC: "# a\n- [ ] a.txt\n", ".gitignore": ".ralph/\n"})
    project.commit_all()
    script = project.root.parent / "inline-script.json"
    steps = [{"write": {"a.txt": "x\n"}, "signal": "DONE"}, {"signal": "DONE"}]
    script.write_text(json.dumps({SPEC: steps}))
    state_file = project.root / ".ralph" / "state.json"
    seen: list[tuple[str, dict[str, Any]]] = []

    def watch(fact: Fact) -> None:  # called once the record is written
        if isinstance(fact, (RotationRecorded, VerificationEnded)):
            seen.append((type(fact).__name__, json.loads(state_file.read_text())))

    agent = inline_agent(script)()
    opts = run_options(project.root, (Member(agent),), watch=watch)
    assert run_loop(opts, lambda event: None) == ExitCode.OK

    rotations = [state for name, state in seen if name == "RotationRecorded"]
    assert len(rotations) == 3  # IMPLEMENT, then two clean DONEs to 3/3
    for counted, state in enumerate(rotations):
        row = next(s for s in state["specs"] if s["path"] == SPEC)
        assert row["rotations"] == counted + 1  # this rotation is in the saved state already
        assert row["done_count"] == counted + 1  # and its DONE counted: never lost by a kill
    verifications = [state for name, state in seen if name == "VerificationEnded"]
    assert len(verifications) == 1
    assert verifications[0]["final_verification"]["passed"]  # saved before its record
    final = json.loads(state_file.read_text())
    assert final["final_verification"]["passed"] and final["specs"][0]["rotations"] == 3


def test_the_state_file_is_written_once_per_new_state(tmp_path: Path) -> None:
    path = tmp_path / "state.json"
    statefile = StateFile(path)
    first = State()
    statefile.save(first)
    assert load_state(path).iteration == 0
    path.write_text("left alone")
    statefile.save(replace(first))  # the same state again: not written twice
    assert path.read_text() == "left alone"
    second = replace(first, iteration=1)
    statefile.save(second)
    assert load_state(path).iteration == 1


def test_one_commit_step_folds_then_saves_then_writes_what_was_saved() -> None:
    """run/ledger.commit, the step a spec's rotation, a lane's and the final verification
    share: the fold's state is saved before anything is written, and the writer gets that
    saved state and the specs the fold dropped; a failed save writes nothing."""
    from ralph.rules.agents.budget import LatencyBudget
    from ralph.run import ledger
    from ralph.run.turn import Outcome
    from tests.run.test_fold import outcome

    calls: list[str] = []
    start, folded, done = State(), replace(State(), last_rotation=7), outcome("DONE")
    after = object()

    def fold(state: State, settled: Outcome) -> tuple[State, tuple[str, ...]]:
        calls.append(f"fold {settled.signal}")
        assert state is start
        return folded, ("specs/b.spec.md",)

    def save(state: State) -> None:
        calls.append("save")
        assert state is folded

    def write(state: State, dropped: tuple[str, ...]) -> Any:
        calls.append("write")
        assert (state, dropped) == (folded, ("specs/b.spec.md",))
        return after

    budget = LatencyBudget(1000)
    assert ledger.commit(start, done, fold, save, budget, write) == (folded, after)
    assert calls == ["fold DONE", "save", "write"]
    assert {"bookkeeping", "state_save"} <= set(budget.to_json()["ops"])

    def broken(state: State) -> None:
        raise OSError("disk full")

    calls.clear()
    with pytest.raises(OSError):
        ledger.commit(start, done, fold, broken, budget, write)
    assert calls == ["fold DONE"]  # no record ahead of the state (kill -9's order)
