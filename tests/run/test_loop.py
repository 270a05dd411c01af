"""run/loop.py, the sequential scheduler, in-process and without a process but git: the
scripted agent is played in this process through the seam every agent uses (CommandAgent's
execute, tests/fakes/scripted_inline.py), and `run_loop` is called as `ralph run` calls it.
The CLI tests of the same rules are in tests/e2e/test_loop.py; these are the inner loop's."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from ralph.agents.member import Member
from ralph.errors import ExitCode
from ralph.rules.counts.state import SpecState, State
from ralph.run.events import Event, RotationEnded, RotationStarted, RunEnded
from ralph.run.loop import selected_reason
from ralph.run.start import run_loop
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project
from tests.fakes.scripted_inline import inline_agent
from tests.run.test_options import run_options

TWO = {"specs/a.spec.md": "# a\n- [ ] a.txt\n", "specs/b.spec.md": "# b\n- [ ] b.txt\n"}

ONLY = ("specs/b.spec.md",)
CHANGE = {"write": {"a.txt": "x\n"}, "signal": "DONE"}


def play(project: Project, steps: dict[str, Any], **more: Any) -> tuple[int, list[Event]]:
    """`ralph run` with the scripted agent in-process: its steps, these options (settings by
    name, `yaml=` ralph.yaml, other fields: tests/run/test_options.py), its events."""
    script = project.root.parent / "inline-script.json"
    script.write_text(json.dumps(steps))
    agent = Member(inline_agent(script)())
    options = run_options(project.root, (agent,), **more)
    events: list[Event] = []
    return run_loop(options, events.append), events


def ended(events: list[Event]) -> list[tuple[str, str, int]]:
    return [(e.spec, e.signal, e.done_count) for e in events if isinstance(e, RotationEnded)]


def reason(events: list[Event]) -> str:
    return next(e for e in events if isinstance(e, RunEnded)).reason


def test_a_change_resets_the_counter_and_three_quiet_dones_verify_the_spec(
    project: Project,
) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    code, events = play(project, {"*": [CHANGE, {"signal": "DONE"}]})
    assert code == ExitCode.OK
    assert ended(events) == [
        ("specs/a.spec.md", "DONE", 1),  # a DONE that changed files counts once
        ("specs/a.spec.md", "DONE", 2),
        ("specs/a.spec.md", "DONE", 3),
        ("(all specs)", "VERIFY_PASS", 3),
    ]
    assert project.counts() == {"specs/a.spec.md": 3}


def test_the_next_spec_is_taken_once_the_current_one_is_done_without_changes(
    project: Project,
) -> None:
    lanes_project(project, TWO)
    code, events = play(project, {"*": [{"signal": "DONE"}]})
    assert code == ExitCode.OK
    started = [e.spec for e in events if isinstance(e, RotationStarted)]
    assert started[:2] == ["specs/a.spec.md", "specs/b.spec.md"]  # one pass, then the other
    assert project.counts() == dict.fromkeys(TWO, 3)


def test_the_budget_of_rotations_ends_the_run_with_its_exit_code(project: Project) -> None:
    lanes_project(project, TWO)
    # work that would end on its own after three rotations: the budget ends it first
    steps = {"*": [{"signal": "CONTINUE"}] * 3 + [{"signal": "DONE"}]}
    code, events = play(project, steps, max_iterations=2)
    assert code == ExitCode.MAX_ITERATIONS
    assert len(ended(events)) == 2
    assert project.state()["iteration"] == 2  # saved as it ended


def test_a_question_stops_the_run_for_a_person(project: Project) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    code, events = play(project, {"*": [{"say": "Which database?", "signal": "QUESTION"}]})
    assert code == ExitCode.NEEDS_HUMAN
    assert ended(events) == [("specs/a.spec.md", "QUESTION", 0)]
    assert "write your answer to .ralph/answer.md" in reason(events)
    # the agent wrote no question file: its words are kept as the question
    assert "Which database?" in (project.root / ".ralph" / "question.md").read_text()


def test_only_the_selected_spec_runs_and_the_others_keep_their_counters(
    project: Project,
) -> None:
    lanes_project(project, TWO)
    code, events = play(project, {"*": [{"signal": "DONE"}]}, spec=ONLY)
    assert code == ExitCode.OK
    assert {spec for spec, _, _ in ended(events)} == {"specs/b.spec.md"}
    assert project.counts()["specs/b.spec.md"] == 3
    assert project.counts().get("specs/a.spec.md", 0) == 0
    # the final verification waits for every spec, and the end says so
    assert reason(events) == selected_reason(State(specs=(SpecState("specs/a.spec.md"),)), ONLY)


# ------------------------------------------------------------------ the road of one rotation

# The modules of ralph.run (and the DONE gate) whose code one rotation of the one-spec scheduler
# runs, from its turn to the run's decision after it (`SpecRun.rotate`), in the order a reader
# follows them; the events' way to the displays and the worklog (run/sink.py, run/recorder.py)
# apart. A change that lengthens the road shows here: update the list, and
# docs/explanation/run-design.md ("one rotation, in the order a reader follows it"), with it.
ROAD = (
    "ralph.run.loop",
    "ralph.run.rotation",
    "ralph.checks.gate",
    "ralph.run.tree",
    "ralph.run.fold",
    "ralph.run.ledger",
)
BESIDE = (
    "ralph.run.context",  # the run's fixed part: Shared.emit, its budget, the clock
    "ralph.run.interrupts",  # interrupts held from the tree taken to the outcome written
    "ralph.run.events",  # the matrix an event shows
    "ralph.run.turn",  # the values passed: Outcome.changes
    "ralph.run.seats",  # the pool hears of the outcome
    "ralph.run.convergence",  # ...and the convergence watch
)
SINK = ("ralph.run.sink", "ralph.run.recorder")


@contextmanager
def calls_seen(files: set[str], *, in_rotation: bool = True) -> Iterator[list[tuple[str, str]]]:
    """(file, function) of each call into `files` while the block runs: inside a rotation of
    the one-spec scheduler (`SpecRun.rotate`) only, or anywhere."""
    import sys
    from types import FrameType

    from ralph.run.loop import SpecRun

    seen: list[tuple[str, str]] = []
    inside: list[FrameType] = []

    def profile(frame: FrameType, event: str, arg: object) -> None:
        if frame.f_code is SpecRun.rotate.__code__:
            if event == "call":
                inside.append(frame)
            elif event == "return":
                inside.remove(frame)
        if (inside or not in_rotation) and event == "call" and frame.f_code.co_filename in files:
            seen.append((frame.f_code.co_filename, frame.f_code.co_name))

    sys.setprofile(profile)
    try:
        yield seen
    finally:
        sys.setprofile(None)


def road_of_one_rotation(project: Project) -> dict[str, int]:
    """The modules of ralph.run and ralph.checks.gate whose functions run while the one-spec
    scheduler turns one rotation (a DONE with a change), with their lines: profiled in-process
    with the scripted agent."""
    from pathlib import Path

    import ralph

    src = Path(ralph.__file__).resolve().parent
    wanted = {str(p): p for p in (src / "run").glob("*.py")} | {
        str(src / "checks" / "gate.py"): src / "checks" / "gate.py"
    }
    lanes_project(project, {"specs/a.spec.md": "# a\n- [ ] a.txt\n"})
    with calls_seen(set(wanted)) as calls:
        play(project, {"*": [CHANGE]}, max_iterations=1)
    seen = dict.fromkeys(filename for filename, _ in calls)  # in the order first run
    modules = {}
    for filename in seen:
        path = wanted[filename]
        name = "ralph." + ".".join(path.relative_to(src).with_suffix("").parts)
        modules[name] = len(path.read_text(encoding="utf-8").splitlines())
    return modules


def test_one_rotation_is_followed_through_a_handful_of_modules(project: Project) -> None:
    found = road_of_one_rotation(project)
    print("\none rotation:", ", ".join(f"{m} ({n})" for m, n in found.items()))
    print(f"{len(found)} modules, {sum(found.values())} lines")
    assert sorted(found) == sorted(ROAD + BESIDE + SINK), (
        "the road of one rotation changed: say where each module belongs (ROAD, BESIDE) and "
        "update the table of docs/explanation/run-design.md"
    )


def test_a_rotation_cut_short_stops_the_run_and_the_pool_does_not_count_it(
    project: Project,
) -> None:
    """`SpecRun.heard`, which both schedulers call after a committed outcome: a rotation cut
    short (its agent stopped by Ctrl-C) is no failure of the agent's, and it stops the run;
    control: the same agent failing on its own is counted, and the run goes on."""
    from ralph.agents.result import AgentResult
    from ralph.process.request import ProcessResult
    from ralph.rules.counts.stops import cut_short
    from ralph.run.context import open_run
    from ralph.run.events import CostsUpdated
    from ralph.run.loop import SpecRun
    from ralph.store.disk.workspace import Workspace
    from ralph.store.live.cancel import CancelWatch
    from ralph.store.live.runlock import RunLock
    from tests.run.test_fold import outcome
    from tests.run.test_start import WORK, options

    lanes_project(project, TWO)
    opts = options(project, WORK)
    ws = Workspace(project.root)
    ws.ensure()
    events: list[Event] = []
    stopped = ProcessResult(None, b"", b"", 0, 0, 0.0, 1.0, False, False, True)
    failed = replace(stopped, exit_code=1, interrupted=False)
    with RunLock(ws.dir, agent="scripted") as lock, CancelWatch(ws.dir) as cancel:
        run = SpecRun(*open_run(opts, ws, events.append, lock, cancel))
        run.begin()
        name, pool = opts.pool[0].agent.name, run.pool
        cut = outcome("ERROR", spec="specs/a.spec.md", agent=name, interrupted=True)
        cut = replace(cut, result=AgentResult(stopped, None, None))
        assert run.heard(cut, run.state.breaker) == cut_short(now=False, lanes=False)
        assert run.pool == pool and not [e for e in events if isinstance(e, CostsUpdated)]
        own = replace(cut, interrupted=False, result=AgentResult(failed, None, None))
        assert run.heard(own, run.state.breaker) is None  # control: counted, goes on
        assert run.pool != pool and [e for e in events if isinstance(e, CostsUpdated)]


def test_a_rotation_reads_ralph_yaml_from_the_run_s_settings_never_from_disk(
    project: Project,
) -> None:
    """ralph.yaml is read once per run: inside a rotation (a DONE with a change, which the
    test configuration's guard and the DONE gate look at) no code of store/person/settings.py or
    store/person/config.py runs; the run's settings (RunOptions.config) say it. Control: the probe
    sees those modules when the guard is not given the run's settings (outside a run)."""
    from pathlib import Path

    import ralph
    from ralph.checks.testconfig import ConfigGuard

    src = Path(ralph.__file__).resolve().parent
    reads = {str(src / "store" / "person" / f) for f in ("settings.py", "config.py")}
    spec = "---\ntests:\n  may_change: false\n---\n# a\n- [ ] a.txt\n"
    lanes_project(project, {"specs/a.spec.md": spec, "t.sh": "true\n"})
    with calls_seen(reads) as calls:
        code, _ = play(project, {"*": [CHANGE]}, max_iterations=2, yaml="test_command: sh t.sh\n")
    assert code == ExitCode.MAX_ITERATIONS
    seen = {name for _, name in calls}
    assert seen <= {"run_or_accepted"}  # handed the run's settings: nothing read
    with calls_seen(reads, in_rotation=False) as calls:  # control: outside a run, the guard
        ConfigGuard(project.root, project.root / ".ralph").scripts()  # reads the accepted ones
    seen = {name for _, name in calls}
    assert "accepted_config" in seen


def test_the_scheduler_s_state_is_saved_as_it_is_set_and_an_equal_one_is_not_rewritten(
    project: Project,
) -> None:
    """`SpecRun.state`: whatever part returned the new state (a fold, the breaker, the
    merger), setting it is the save; no call can be forgotten. Control: setting the state
    state.json already holds writes nothing (StateFile)."""
    from ralph.run.context import open_run
    from ralph.run.loop import SpecRun
    from ralph.store.disk.workspace import Workspace
    from ralph.store.live.cancel import CancelWatch
    from ralph.store.live.runlock import RunLock
    from ralph.store.records.state import load_state
    from tests.run.test_start import WORK, options

    lanes_project(project, TWO)
    opts = options(project, WORK)
    ws = Workspace(project.root)
    ws.ensure()
    with RunLock(ws.dir, agent="scripted") as lock, CancelWatch(ws.dir) as cancel:
        run = SpecRun(*open_run(opts, ws, lambda event: None, lock, cancel))
        run.begin()
        run.state = replace(run.state, max_iteration=7)
        assert load_state(ws.state_file).max_iteration == 7  # saved, with no save called
        ws.state_file.unlink()
        run.state = replace(run.state, max_iteration=7)  # equal to the saved one
        assert not ws.state_file.exists()
