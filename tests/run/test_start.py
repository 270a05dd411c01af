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

from ralph.agents.member import Member
from ralph.errors import ExitCode
from ralph.run import ledger
from ralph.run.events import Event, RotationEnded, RotationStarted, RunEnded
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
    from ralph.store.disk.workspace import Workspace
    from ralph.store.live.cancel import CancelWatch
    from ralph.store.live.runlock import RunLock

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
        run.state = state  # the scheduler's one save: its state, as it is set
        keep = run.gate.keep_tests
        ledger.write(run.rotation.books, attempt, outcome, state, downgraded, keep)  # the tree
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
