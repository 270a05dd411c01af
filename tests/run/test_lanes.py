"""run/lanes.py: the lanes scheduler, in-process (tests/run/test_start.py runs it whole; here
its steps are called as its loop calls them): rotations collected and folded, a 1/3 DONE's
work shared, a 3/3 lane merged, a verified spec whose lane's work is not in the user's branch
reviewed again, a run cut short keeping its lanes, a lane's question and an escalation holding
the other lanes' lines. The CLI tests (tests/e2e/test_lanes*.py) play the same through
`ralph run`."""

from __future__ import annotations

import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from typing import Any

import pytest

from ralph.errors import ExitCode
from ralph.rules.counts.lanebreakers import lane_breaker
from ralph.rules.counts.lanes import lane_name
from ralph.rules.counts.stops import cancelled, cut_short
from ralph.run.escalation import Choice, Escalation
from ralph.run.events import Event, Notice, RotationEnded, RunEnded
from ralph.run.facts import (
    BreakerChanged,
    Fact,
    LaneClosed,
    LaneMerged,
    RotationRecorded,
    VerificationEnded,
    VerificationStarted,
)
from ralph.run.lanes import LaneRun
from ralph.run.lanework import LaneDone
from ralph.run.options import RunOptions
from ralph.run.start import run_loop
from ralph.store.disk.workspace import Workspace
from ralph.store.live.cancel import request_cancel
from ralph.store.records.state import load_state
from ralph.store.repository import worktrees as wt
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project
from tests.run.test_merging import A, B, at, lane_run, notices, worked_lane
from tests.run.test_start import TWO, WORK, options

ONCE = {path: steps[:1] for path, steps in WORK.items()}  # each writes its file, then DONE


def launched(run: LaneRun, executor: ThreadPoolExecutor) -> dict[str, LaneDone]:
    """Each spec's rotation started by the scheduler, in its lane's thread; what each
    returned, not yet collected."""
    run._launch(run.discover(), executor)
    return {path: r.future.result(timeout=120) for path, r in run.running.items()}


def test_a_counted_1_3_done_shares_its_work_and_the_lane_goes_on(project: Project) -> None:
    lanes_project(project, TWO)
    steps = {  # both change files; only a's DONE counts (b's CONTINUE is work unfinished)
        A: [{"write": {"a.txt": "a\n"}, "signal": "DONE"}],
        B: [{"write": {"b.txt": "b\n"}, "signal": "CONTINUE"}],
    }
    with lane_run(project, steps) as (run, said), ThreadPoolExecutor(2) as executor:
        launched(run, executor)
        assert run._collect()
        assert run.sharing == {A}
        run._merge_ready()
        assert run.integration.lanes.get(A) is not None  # open: its spec is at 1/3
    assert (project.root / "a.txt").read_text() == "a\n"  # in the user's branch
    assert not (project.root / "b.txt").exists()  # still in its lane
    assert project.counts() == {A: 1, B: 0}
    merged = [(f.spec, f.closes) for f in said if isinstance(f, LaneMerged)]
    assert merged == [(A, False)]


def test_a_lane_at_3_3_is_merged_and_closed(project: Project) -> None:
    lanes_project(project, TWO)
    steps = {A: [{"signal": "DONE"}], B: [{"signal": "CONTINUE"}]}
    with lane_run(project, steps) as (run, said), ThreadPoolExecutor(2) as executor:
        worked_lane(run.integration, A, {"a.txt": "a\n"})
        at(run, a=2)
        launched(run, executor)
        run._collect()  # a's third DONE: the tree it was reached on is recorded
        run._merge_ready()
        assert run.integration.lanes.get(A) is None
        assert run.integration.lanes.get(B) is not None  # b goes on in its lane
    assert project.counts() == {A: 3, B: 0}  # merged on the tree it verified: still 3/3
    assert (project.root / "a.txt").read_text() == "a\n"
    assert [(f.spec, f.closes) for f in said if isinstance(f, LaneMerged)] == [(A, True)]


def test_a_verified_spec_whose_lane_is_not_merged_is_reviewed_again(project: Project) -> None:
    lanes_project(project, TWO)
    with lane_run(project) as (run, said):
        at(run, a=3, b=3)
        assert run._settled()  # nothing left out: nothing changes
        assert project.counts() == {A: 3, B: 3}
        worked_lane(run.integration, A, {"a.txt": "a\n"})
        assert not run._settled()
    assert project.counts() == {A: 2, B: 3}  # saved
    assert any(m.startswith(f"{A}: its lane's work is not in main") for m in notices(said))


def test_a_run_cut_short_keeps_its_unmerged_lanes_and_says_where(project: Project) -> None:
    lanes_project(project, TWO)
    steps = {path: [{"write": {f"{path[6]}.txt": "x\n"}, "signal": "CONTINUE"}] for path in TWO}
    said: list[Event] = []
    code = run_loop(options(project, steps, parallel=2, max_iterations=2), said.append)
    assert code == ExitCode.MAX_ITERATIONS
    kept = [m for m in notices(list(said)) if m.startswith("lane kept")]
    assert len(kept) == 2 and any(A in m and "ralph/" in m for m in kept)
    assert not (project.root / "a.txt").exists()
    for path in TWO:  # each lane's work in its worktree, nothing lost (uncounted: uncommitted)
        worktree = wt.lane_path(project.root, lane_name(path))
        assert (worktree / f"{path[6]}.txt").read_text() == "x\n"
    assert project.git("log", "--all", "--format=%s").splitlines() == ["init"]


def test_a_cancel_ends_the_run_after_the_running_lanes_and_now_stops_them(
    project: Project,
) -> None:
    lanes_project(project, TWO)
    with lane_run(project, ONCE) as (run, _), ThreadPoolExecutor(2) as executor:
        launched(run, executor)  # ended, not yet collected: still running for the scheduler
        assert run._stop_reason() is None  # nothing asked: the run goes on
        request_cancel(run.shared.ws.dir, os.getpid(), "after")
        code, reason = run._stop_reason() or (None, "")
        assert (code, reason) == (ExitCode.INTERRUPTED, cancelled(lanes=True).reason)
        assert not any(r.stop.is_set() for r in run.running.values())  # they finish
        request_cancel(run.shared.ws.dir, os.getpid(), "now")
        code, reason = run._stop_reason() or (None, "")
        assert reason == cut_short(now=True, lanes=True).reason
        assert len(run.running) == 2 and all(r.stop.is_set() for r in run.running.values())


THREE = {**TWO, "specs/c.spec.md": "# c\n"}
C = "specs/c.spec.md"


def _b_dropped_by_a_s_merge(run: LaneRun, *, c_lane: bool) -> list[str]:
    """b merged earlier (3/3, no lane of its own); a's lane merges at 3/3 and drops b to
    2/3; c at 0/3, in an open lane or not yet: the specs the scheduler would start next."""
    if c_lane:
        worked_lane(run.integration, C, {"c.txt": "c\n"})
    worked_lane(run.integration, A, {"a.txt": "a\n"})
    at(run, a=3, b=3, c=0)
    run.integration.verified(A)
    lane = run.integration.lanes.get(A)
    assert lane is not None
    run.state = run.integration.merge(run.state, lane, {A})
    assert run.state.get(B).done_count == 2  # type: ignore[union-attr]
    return [s.path for s in run._candidates(run.discover())]


def test_a_merged_spec_dropped_to_2_3_waits_while_other_lanes_are_open(project: Project) -> None:
    """Its review would be undone by c's merge to come: it waits for the open lanes."""
    lanes_project(project, THREE)
    with lane_run(project) as (run, _):
        assert _b_dropped_by_a_s_merge(run, c_lane=True) == [C]


def test_a_merged_spec_dropped_to_2_3_is_reviewed_once_no_lane_is_open(project: Project) -> None:
    lanes_project(project, THREE)
    with lane_run(project) as (run, _):
        assert sorted(_b_dropped_by_a_s_merge(run, c_lane=False)) == [B, C]


def test_a_spec_at_2_3_in_its_own_open_lane_is_not_held_back(project: Project) -> None:
    """Only a spec without a lane waits: one with work in its lane goes on beside the others."""
    lanes_project(project, THREE)
    with lane_run(project) as (run, _):
        worked_lane(run.integration, B, {"b.txt": "b\n"})
        worked_lane(run.integration, C, {"c.txt": "c\n"})
        at(run, a=3, b=2, c=0)
        assert sorted(s.path for s in run._candidates(run.discover())) == [B, C]


@pytest.mark.slow  # lanes: its agents run shell commands
def test_merged_lanes_close_while_the_final_verification_runs(project: Project) -> None:
    lanes_project(project, TWO)
    facts: list[Event | Fact] = []
    steps: dict[str, Any] = {**WORK, "VERIFY": [{"run": "sleep 2", "signal": "VERIFY_PASS"}]}
    opts = options(project, steps, parallel=2, watch=facts.append)
    code = run_loop(opts, lambda e: None)
    assert code == ExitCode.OK
    started = next(i for i, f in enumerate(facts) if isinstance(f, VerificationStarted))
    ended = next(i for i, f in enumerate(facts) if isinstance(f, VerificationEnded))
    closed = [i for i, f in enumerate(facts) if isinstance(f, LaneClosed)]
    assert len(closed) == 2
    assert all(started < i < ended for i in closed)  # not after it, one by one
    assert not wt.lanes_folder(project.root).exists()


CRASH = {"say": "Traceback: boom", "exit": 1}


def _breakers_run(project: Project, steps: dict[str, Any]) -> tuple[int, list[Any], list[Any]]:
    """`ralph run --parallel 3` with two failures in a row opening a breaker, and a person who
    answers Abort: the exit code, the escalations asked, the facts said."""
    lanes_project(project, THREE)
    asked: list[Escalation] = []
    facts: list[Event | Fact] = []

    def decide(e: Escalation) -> Choice:
        asked.append(e)
        return "abort"

    yaml = "breaker: {threshold: 2}\n"
    opts = options(project, steps, yaml, parallel=3, decide=decide, watch=facts.append)
    code = run_loop(_keep_agents(opts), lambda e: None)
    return code, asked, facts


def test_a_lane_s_breaker_pauses_that_lane_only(project: Project) -> None:
    """a's lane fails again and again: its breaker opens and pauses it; b and c go on to 3/3
    and merge; only then, no lane able to go on, is a person asked (about a's lane)."""
    steps: dict[str, Any] = {A: [CRASH]}
    for path, name in ((B, "b.txt"), (C, "c.txt")):
        steps[path] = [{"write": {name: "x\n"}, "signal": "DONE"}, {"signal": "DONE"}]
    code, asked, facts = _breakers_run(project, steps)
    assert code == ExitCode.NEEDS_HUMAN
    assert [(e.spec, e.lane) for e in asked] == [(A, True)]
    counts = project.counts()
    assert (counts[B], counts[C]) == (3, 3)  # the healthy lanes went on to verified
    assert (project.root / "b.txt").exists() and (project.root / "c.txt").exists()
    rotations = [f.spec for f in facts if isinstance(f, RotationRecorded)]
    assert rotations.count(A) == 2  # paused once its own breaker opened
    opened = [f for f in facts if isinstance(f, BreakerChanged) and f.after == "OPEN"]
    assert [f.lane for f in opened] == [A]
    assert lane_breaker(load_state(Workspace(project.root).state_file), A).state == "OPEN"


def test_when_every_lane_is_paused_the_run_ends_on_the_breaker(project: Project) -> None:
    """The control: every lane failing, none can go on: asked once, Abort, exit 5."""
    code, asked, facts = _breakers_run(project, {path: [CRASH] for path in THREE})
    assert code == ExitCode.NEEDS_HUMAN
    assert len(asked) == 1 and asked[0].lane
    opened = [f.lane for f in facts if isinstance(f, BreakerChanged) and f.after == "OPEN"]
    assert sorted(opened) == sorted(THREE)  # type: ignore[type-var]
    assert sum(isinstance(f, RotationRecorded) for f in facts) == 6  # two a lane


def _keep_agents(opts: RunOptions) -> RunOptions:
    """The breaker is the subject, not the pool: the agent never leaves it."""

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


@pytest.mark.slow  # lanes: its agents run shell commands
def test_a_done_counted_while_the_run_ends_is_counted_before_its_end_is_said(
    project: Project,
) -> None:
    """a's REVIEW keeps changing files: a person is asked and answers Abort while b's lane
    still runs; b's agent says DONE only after the answer (a file, not a time). The run's end
    is said once b's DONE is counted: the end matrix, the state and the records agree."""
    lanes_project(project, TWO)
    answered = project.root.parent / "answered"
    steps = {
        A: [
            {"write": {"a.txt": "1\n"}, "signal": "DONE"},
            {"write": {"a.txt": "2\n"}, "signal": "DONE"},
        ],
        B: [
            {
                "run": f"while [ ! -e {answered} ]; do sleep 0.01; done",
                "write": {"b.txt": "b\n"},
                "signal": "DONE",
            }
        ],
    }
    shown: list[Event] = []

    def decide(e: Escalation) -> Choice:
        answered.touch()  # b's agent ends its rotation now
        return "abort"

    opts = options(project, steps, "convergence: {patience: 1}\n", parallel=2, decide=decide)
    code = run_loop(opts, shown.append)
    assert code == ExitCode.NEEDS_HUMAN
    ended = [e for e in shown if isinstance(e, RunEnded)]
    assert len(ended) == 1 and shown[-1] is ended[0]  # nothing is said after the end
    b_ended = [e.done_count for e in shown if isinstance(e, RotationEnded) and e.spec == B]
    assert b_ended == [1]
    assert {row.path: row.done_count for row in ended[0].matrix}[B] == 1  # the end matrix
    assert project.counts()[B] == 1  # the state: `ralph status`, the reports
