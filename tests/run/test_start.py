"""`run/` on its own, in-process and in milliseconds: a rotation called directly, and the two
schedulers over it (one spec at a time, and lanes), with the scripted agent played in-process
through the same seam real agents use (tests/fakes/scripted_inline.py). The CLI tests beside
these play the same rules through the real command."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from ralph.agents.member import Member
from ralph.errors import ExitCode
from ralph.run import ledger
from ralph.run.escalation import Choice, Escalation
from ralph.run.events import Event, Notice, RotationEnded, RotationStarted, RunEnded
from ralph.run.fold import fold
from ralph.run.options import RunOptions
from ralph.run.start import run_loop
from ralph.run.turn import Turn
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project
from tests.fakes.scripted_inline import inline_agent
from tests.run.test_options import run_options

TWO = {"specs/a.spec.md": "# a\n- [ ] a.txt\n", "specs/b.spec.md": "# b\n- [ ] b.txt\n"}
WORK = {
    path: [{"write": {f"{Path(path).name[0]}.txt": "x\n"}, "signal": "DONE"}, {"signal": "DONE"}]
    for path in TWO
}


def options(project: Project, steps: dict[str, Any], yaml: str = "", **more: Any) -> RunOptions:
    script = project.root.parent / "inline-script.json"
    script.write_text(json.dumps(steps))
    agent = inline_agent(script)()
    return run_options(project.root, (Member(agent),), yaml, **more)


def ends(events: list[Event]) -> list[tuple[str, str, int]]:
    return [(e.spec, e.signal, e.done_count) for e in events if isinstance(e, RotationEnded)]


def test_one_spec_at_a_time_scheduler(project: Project) -> None:
    lanes_project(project, TWO)
    events: list[Event] = []
    # in-process: no agent program starts (tests/slowness.py fails a quick test that starts one)
    code = run_loop(options(project, WORK), events.append)
    assert code == ExitCode.OK
    done = ends(events)
    for path in TWO:  # one rotation at a time, each spec to 3/3
        assert [n for spec, _, n in done if spec == path] == [1, 2, 3]
    assert done[-1] == ("(all specs)", "VERIFY_PASS", 3)  # then the final verification
    assert not any(getattr(e, "lane", None) for e in events)
    assert project.counts() == dict.fromkeys(TWO, 3)


def test_lanes_scheduler_over_the_same_rotation(project: Project) -> None:
    lanes_project(project, TWO)
    events: list[Event] = []
    code = run_loop(options(project, WORK, parallel=2), events.append)
    assert code == ExitCode.OK
    done = ends(events)
    for path in TWO:  # each spec's own rotations, in its own lane, to 3/3
        assert [n for spec, _, n in done if spec == path][:3] == [1, 2, 3]
    lanes = {e.spec: e.lane for e in events if isinstance(e, RotationStarted)}
    assert lanes["specs/a.spec.md"] and lanes["specs/b.spec.md"]
    assert lanes["specs/a.spec.md"] != lanes["specs/b.spec.md"]
    assert lanes["(all specs)"] is None  # the final verification runs on the merged tree
    assert project.counts() == dict.fromkeys(TWO, 3)
    for n in "ab":  # both lanes' work merged into the user's branch
        assert (project.root / f"{n}.txt").read_text() == "x\n"


def test_both_schedulers_end_alike_on_a_stuck_agent(project: Project) -> None:
    lanes_project(project, TWO)
    steps = {"specs/a.spec.md": [{"signal": "STUCK"}], "specs/b.spec.md": WORK["specs/b.spec.md"]}
    for parallel in (1, 2):
        events: list[Event] = []
        code = run_loop(options(project, steps, parallel=parallel), events.append)
        assert code == ExitCode.NEEDS_HUMAN, parallel
        end = next(e for e in events if isinstance(e, RunEnded))
        assert "stuck on specs/a.spec.md" in end.reason


def test_a_rotation_called_directly_returns_its_outcome(project: Project) -> None:
    from ralph.run.context import open_run
    from ralph.run.loop import SpecRun
    from ralph.store.cancel import CancelWatch
    from ralph.store.runlock import RunLock
    from ralph.store.workspace import Workspace

    lanes_project(project, TWO)
    opts = options(project, WORK)
    ws = Workspace(project.root)
    ws.ensure()
    events: list[Event] = []
    with RunLock(ws.dir, agent="scripted") as lock, CancelWatch(ws.dir) as cancel:
        run = SpecRun(*open_run(opts, ws, events.append, lock, cancel))
        specs, before = run.begin()
        start = run.state
        turn = Turn(
            spec=specs[0],
            mode="IMPLEMENT",
            agent=opts.pool[0].agent,
            judge=opts.pool[0].agent,
            iteration=1,
            state=start,
            answer=None,
            first=0,
            limit=20,
            tick=time.perf_counter(),
            stop=threading.Event(),
        )
        attempt = run.rotation.attempt(turn)
        outcome = run.rotation.settle(attempt, before)  # returned, not folded
        unfolded = project.counts()["specs/a.spec.md"]
        state, downgraded = fold(start, outcome, run.circuit.rule)  # the one place results join
        unsaved = project.counts()["specs/a.spec.md"]  # the fold writes nothing
        ledger.record(run.rotation, attempt, outcome, state, downgraded)  # before the state
        run.state = state
        run.save()  # the scheduler's one save
        ledger.keep(run.rotation, attempt, outcome, state, downgraded)  # the tree, the events
    assert (outcome.spec, outcome.mode, outcome.signal) == ("specs/a.spec.md", "IMPLEMENT", "DONE")
    assert outcome.changes.paths == ("a.txt",)
    assert not outcome.interrupted
    assert outcome.result.process.exit_code == 0
    assert unfolded == unsaved == 0  # nothing written by the rotation: its caller folds
    assert project.counts()["specs/a.spec.md"] == 1  # written in one step, after the fold
    row = state.get("specs/a.spec.md")
    assert row is not None and (row.done_count, row.last_status) == (1, "DONE")
    assert downgraded == ()
    assert state.usage.rotations == start.usage.rotations + 1


@pytest.mark.slow  # lanes: its agents run shell commands
def test_an_escalation_holds_every_lane_s_lines_until_answered(project: Project) -> None:
    """What a display gets while a person is asked: nothing (the pty test plays the same
    through the real CLI); what came meanwhile follows the answer."""
    lanes_project(project, {**TWO, "specs/c.spec.md": "# c\n"})
    crash = {"say": "Traceback: boom", "exit": 1}
    steps = {
        "specs/a.spec.md": [{"run": "sleep 0.2", **crash}],
        "specs/b.spec.md": [{"run": "sleep 0.4", **crash}],
        "specs/c.spec.md": [{"run": "sleep 1", "say": "late", "signal": "CONTINUE"}],
    }
    shown: list[Event] = []
    during: list[int] = []

    def decide(e: Escalation) -> Choice:
        before = len(shown)
        time.sleep(1.5)  # the person reads; lane c's rotation ends meanwhile
        during.append(len(shown) - before)
        return "abort"

    opts = options(project, steps, "breaker: {threshold: 2}\n", parallel=3, decide=decide)
    opts = _keep_agents(opts)
    code = run_loop(opts, shown.append)
    assert code == ExitCode.NEEDS_HUMAN
    assert during == [0]
    assert any(
        isinstance(e, RotationEnded) and e.spec == "specs/c.spec.md" for e in shown
    )  # shown once answered


def _keep_agents(opts: RunOptions) -> RunOptions:
    """The breaker is the subject, not the pool: the agent never leaves it."""
    from dataclasses import replace

    return replace(opts, policy=replace(opts.policy, max_failures=None))


@pytest.mark.slow  # lanes: its agents run shell commands
def test_a_lane_s_question_is_the_last_thing_shown_before_the_run_ends(project: Project) -> None:
    lanes_project(project, TWO)
    steps = {
        "specs/a.spec.md": [{"say": "which database?", "signal": "QUESTION"}],
        "specs/b.spec.md": [{"run": "sleep 0.8", "say": "b at work", "signal": "CONTINUE"}],
    }
    shown: list[Event] = []
    code = run_loop(options(project, steps, parallel=2), shown.append)
    assert code == ExitCode.NEEDS_HUMAN
    asked = [
        i
        for i, e in enumerate(shown)
        if isinstance(e, Notice) and e.message.startswith("question from the agent")
    ]
    b_ended = max(i for i, e in enumerate(shown) if isinstance(e, RotationEnded) and "b." in e.spec)
    assert asked[-1] > b_ended  # shown again after the other lane's rotation ended
    assert isinstance(shown[-1], RunEnded)
    assert len(asked) == 2  # when asked, and again last (the display only)


def test_run_json_lists_only_lanes_with_a_rotation_under_way(project: Project) -> None:
    """`ralph inspect` reads run.json's `lanes`: a lane whose rotation was folded leaves it."""
    lanes_project(project, TWO)
    seen: list[dict[str, Any]] = []

    def display(event: Event) -> None:
        if isinstance(event, RunEnded):  # the run still holds its lock: run.json is there
            seen.append(json.loads((project.root / ".ralph" / "run.json").read_text()))

    code = run_loop(options(project, WORK, parallel=2), display)
    assert code == ExitCode.OK
    assert seen and seen[0].get("lanes", {}) == {}
