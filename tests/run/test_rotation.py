"""run/rotation.py on its own, in-process: a rotation's two parts called directly (`attempt`:
prompt, agent, DONE gate; `settle`: the tree taken, the outcome as values), the scripted agent
played in this process through the seam every agent uses (tests/fakes/scripted_inline.py), and
the signal rules with results built by hand. The scheduler's fold and writes are tested in
tests/run/test_fold.py and tests/run/test_ledger.py."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest

from ralph.agents.member import Member
from ralph.agents.result import AgentFault, AgentResult
from ralph.checks.records import GateDecided
from ralph.process.request import ProcessResult
from ralph.rules.counts.breaker import Rule
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import BYPASSED, State
from ralph.run.context import open_run
from ralph.run.events import AgentOutput, Event, RotationStarted
from ralph.run.facts import Fact
from ralph.run.fold import fold
from ralph.run.loop import SpecRun
from ralph.run.rotation import Rotation, signal_of
from ralph.run.turn import Turn
from ralph.store.disk.workspace import Workspace
from ralph.store.live.cancel import CancelWatch
from ralph.store.live.runlock import RunLock
from ralph.store.snapshots.snapshot import Snapshot
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project
from tests.fakes.scripted_inline import inline_agent
from tests.run.test_options import run_options

A = "specs/a.spec.md"
PLAIN = {A: "# a\n- [ ] a.txt\n"}
# a semantic check: its DONE asks a judge (the same scripted agent, in JUDGE mode)
JUDGED = {A: "---\nchecks:\n  - method: semantic\n    config: {check_for: [x]}\n---\n# a\n"}
CHANGE = {"write": {"a.txt": "x\n"}, "signal": "DONE"}


@contextmanager
def opened(
    project: Project, files: dict[str, str], steps: dict[str, Any], **more: Any
) -> Iterator[tuple[SpecRun, list[Spec], Snapshot, list[Event | Fact]]]:
    """The one-spec scheduler of a project, begun (no rotation yet), with the scripted agent
    in-process: the parts a test calls directly, the specs, the tree as it began, its events."""
    lanes_project(project, files)
    script = project.root.parent / "inline-script.json"
    script.write_text(json.dumps(steps))
    agent = Member(inline_agent(script)())
    opts = run_options(project.root, (agent,), **more)
    ws = Workspace(project.root)
    ws.ensure()
    events: list[Event | Fact] = []
    with RunLock(ws.dir, agent="scripted") as lock, CancelWatch(ws.dir) as cancel:
        run = SpecRun(*open_run(opts, ws, events.append, lock, cancel))
        specs, before = run.begin()
        yield run, specs, before, events


def turn_of(run: SpecRun, spec: Spec, state: State | None = None, iteration: int = 1) -> Turn:
    """A turn as the scheduler makes one: every input explicit."""
    agent = run.shared.opts.pool[0].agent
    return Turn(
        *(spec, "IMPLEMENT", agent, agent, iteration, state or run.state, None),
        *(0, 20, time.perf_counter(), threading.Event()),
    )


def test_a_rotation_returns_its_outcome_as_values_and_writes_no_state(project: Project) -> None:
    with opened(project, PLAIN, {"*": [CHANGE]}) as (run, specs, before, _):
        attempt = run.rotation.attempt(turn_of(run, specs[0]))
        outcome = run.rotation.settle(attempt, before)
    assert (attempt.signal, attempt.interrupted, attempt.judged) == ("DONE", False, ())
    assert (outcome.spec, outcome.mode, outcome.agent, outcome.iteration) == (
        A,
        "IMPLEMENT",
        "scripted",
        1,
    )
    assert (outcome.signal, outcome.changes.paths, outcome.lane) == ("DONE", ("a.txt",), None)
    assert outcome.spec_hash is not None and outcome.ended > 0
    assert project.counts() == {A: 0}  # nothing folded, nothing saved: its scheduler does
    assert (project.root / ".ralph" / "prompt.md").read_text().startswith("#")  # its prompt


@pytest.mark.slow  # the semantic check's clean room starts Python
def test_what_a_judge_spent_comes_back_in_the_attempt(project: Project) -> None:
    with opened(project, JUDGED, {"*": [CHANGE]}) as (run, specs, before, _):
        attempt = run.rotation.attempt(turn_of(run, specs[0], iteration=4))
        outcome = run.rotation.settle(attempt, before)
    assert [(j.iteration, j.spec, j.agent) for j in attempt.judged] == [(4, A, "scripted")]
    assert outcome.judged == attempt.judged  # on to the fold, which counts it
    assert not hasattr(run.rotation, "judged")  # a value returned, not a list kept
    assert [r["agent"] for r in project.worklog("judge")] == ["scripted"]  # and recorded


@pytest.mark.slow  # the semantic check's clean room starts Python
@pytest.mark.parametrize("stopped", [True, False])
def test_a_judge_s_spending_counts_when_ctrl_c_comes_after_the_checks(
    project: Project, stopped: bool
) -> None:
    """A Ctrl-C once the checks have run (here: as the gate records its decision, through the
    run's watcher, which a KeyboardInterrupt passes) ends the DONE as interrupted, and what the
    judge spent, already in the worklog, comes back in the attempt all the same: the fold counts
    it. Control: the same DONE, not stopped."""

    def watch(fact: Fact) -> None:
        if stopped and isinstance(fact, GateDecided):
            raise KeyboardInterrupt

    with opened(project, JUDGED, {"*": [CHANGE]}, watch=watch) as (run, specs, before, _):
        attempt = run.rotation.attempt(turn_of(run, specs[0], iteration=4))
        outcome = run.rotation.settle(attempt, before)
    assert (attempt.signal, attempt.interrupted) == (
        ("ERROR", True) if stopped else ("DONE", False)
    )
    assert [(j.iteration, j.spec, j.agent) for j in attempt.judged] == [(4, A, "scripted")]
    assert [r["agent"] for r in project.worklog("judge")] == ["scripted"]  # recorded: counted
    spent = fold(run.state, outcome, Rule())[0].usage
    assert spent.rotations == 2  # the agent's call and the judge's


def test_a_bypassed_spec_s_done_skips_the_gate(project: Project) -> None:
    with opened(project, JUDGED, {"*": [CHANGE]}) as (run, specs, _, _):
        row = run.state.get(A)
        assert row is not None
        bypassed = run.state.with_spec(replace(row, override=BYPASSED))
        attempt = run.rotation.attempt(turn_of(run, specs[0], bypassed))
    assert attempt.signal == "DONE" and attempt.judged == ()  # no judge was asked
    assert [r["spec"] for r in project.worklog("gate_bypassed")] == [A]  # a recorded risk


def test_a_lane_s_events_name_the_lane_and_its_lines_the_spec(project: Project) -> None:
    with opened(project, PLAIN, {"*": [CHANGE]}) as (run, _, _, events):
        lane = replace(run.rotation.place, lane="lane-a")
        rotation = Rotation(run.shared, lane, run.tree, lambda record: run.gate)
        rotation.emit(AgentOutput("stdout", ("working",), A, 3))
        run.rotation.emit(AgentOutput("stdout", ("mine",), A, 3))  # the control: no lane
    shown = [e for e in events if isinstance(e, AgentOutput)]
    assert [(e.lines, e.lane) for e in shown] == [((f"{A}: working",), "lane-a"), (("mine",), None)]


def test_the_rotation_started_event_carries_the_lane(project: Project) -> None:
    with opened(project, PLAIN, {"*": [{"signal": "CONTINUE"}]}) as (run, specs, _, events):
        place = replace(run.rotation.place, lane="lane-b")
        Rotation(run.shared, place, run.tree, lambda record: run.gate).attempt(
            turn_of(run, specs[0])
        )
    started = [e for e in events if isinstance(e, RotationStarted)]
    assert [(e.spec, e.lane) for e in started] == [(A, "lane-b")]


# ------------------------------------------------------------------ the signal, as recorded


def result(out: str = "", exit_code: int = 0, **more: Any) -> AgentResult:
    process = ProcessResult(
        exit_code, out.encode(), b"", len(out), 0, 0.0, 1.0, False, False, False
    )
    return AgentResult(process, None, **more)


def fault(kind: Any) -> AgentResult:
    return result(fault=AgentFault(kind, "said so"))


@pytest.mark.parametrize(
    ("given", "recorded"),
    [
        (result("<ralph>DONE</ralph>\n"), ("DONE", None)),
        (result("<ralph>CONTINUE</ralph>\n"), ("CONTINUE", None)),
        (result("no word\n"), ("NONE", "no signal in the agent's output; counted as CONTINUE")),
        (result("<ralph>VERIFY_PASS</ralph>\n"), ("NONE", None)),
        (result("<ralph>DONE</ralph>\n", exit_code=2), ("ERROR", "exit code 2")),
        (fault("overflow"), ("ROTATE", "context overflow: said so")),
        (fault("rate_limit"), ("ERROR", "rate limit: said so")),
        (fault("auth"), ("ERROR", "auth or configuration error: said so")),
    ],
)
def test_the_signal_of_a_rotation(given: AgentResult, recorded: tuple[str, str | None]) -> None:
    signal, note = signal_of(given, "", threading.Event(), threading.Event())
    assert signal == recorded[0]
    if recorded[0] == "NONE" and recorded[1] is None:  # a verdict outside a verification
        assert note is not None and "only counts in a final verification" in note
    else:
        assert note == recorded[1]


def test_a_cancel_now_is_said_as_such() -> None:
    stopped = result()
    stopped = replace(stopped, process=replace(stopped.process, interrupted=True))
    stop, now = threading.Event(), threading.Event()
    assert signal_of(stopped, "", stop, now) == ("ERROR", "interrupted")  # Ctrl-C
    stop.set()
    now.set()
    assert signal_of(stopped, "", stop, now) == ("ERROR", "cancelled (ralph cancel --now)")
