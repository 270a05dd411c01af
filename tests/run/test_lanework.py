"""run/lanework.py: a lane's thread, in-process (the scheduler's own executor, the in-process
scripted agent): its parts made at its first rotation and kept for the next, its work
committed in its lane, and nothing written that the coordinator reads; `meanwhile`; run.json's
news of the lanes."""

from __future__ import annotations

import json
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Any

import pytest

from ralph.errors import ExitCode
from ralph.run import lanework
from ralph.run.events import Event, RotationEnded, RunEnded
from ralph.run.lanework import meanwhile
from ralph.run.start import run_loop
from ralph.store.live.lanes import lanes_file
from ralph.store.repository import worktrees as wt
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project
from tests.run.test_lanes import ONCE, launched
from tests.run.test_merging import A, B, lane_run
from tests.run.test_start import TWO, WORK, options


def test_a_lane_s_thread_writes_nothing_the_coordinator_reads(project: Project) -> None:
    lanes_project(project, TWO)
    with lane_run(project, ONCE) as (run, _), ThreadPoolExecutor(2) as executor:
        read = (run.shared.ws.state_file, lanes_file(project.root))
        run._launch(run.discover(), executor)  # numbered and saved by the coordinator
        before, state = [p.read_bytes() for p in read], run.state
        done = {path: r.future.result(timeout=120) for path, r in run.running.items()}
        assert [p.read_bytes() for p in read] == before  # neither the state nor the registry
        assert run.state is state
        assert {p: d.outcome.signal for p, d in done.items()} == dict.fromkeys(TWO, "DONE")
        assert project.counts() == dict.fromkeys(TWO, 0)  # not counted until folded
        run._collect()
    assert project.counts() == dict.fromkeys(TWO, 1)  # the coordinator's fold


def test_a_rotation_s_work_is_committed_in_its_lane(project: Project) -> None:
    lanes_project(project, TWO)
    steps = {A: ONCE[A], B: [{"signal": "CONTINUE"}]}  # b changes nothing
    with lane_run(project, steps) as (run, _), ThreadPoolExecutor(2) as executor:
        launched(run, executor)
        lanes = {path: run.integration.lanes.get(path) for path in TWO}
        for path, lane in lanes.items():
            assert lane is not None
            worktree = wt.repo(run.integration.worktree(lane), run.shared.git)
            assert wt.uncommitted(worktree) == [], path
    a, b = lanes[A], lanes[B]
    assert a is not None and b is not None
    log = project.git("log", "--format=%s", a.branch).splitlines()
    assert log[0] == f"ralph: rotation {log[0].split()[2]} on {A} (DONE)"
    assert project.git("show", f"{a.branch}:a.txt") == "x\n"
    assert (project.root / "a.txt").exists() is False  # in its lane, not the user's branch
    assert project.git("log", "--format=%s", b.branch).splitlines() == ["init"]  # nothing new


def test_a_lane_s_parts_are_made_at_its_first_rotation_and_kept(project: Project) -> None:
    lanes_project(project, TWO)
    with lane_run(project, WORK) as (run, _), ThreadPoolExecutor(2) as executor:
        first = launched(run, executor)
        run._collect()
        for path, done in first.items():
            lane = run.integration.lanes.get(path)
            assert lane is not None and run.parts[lane.name] is done.parts
            assert (run.shared.ws.dir / "lanes" / lane.name).is_dir()  # its own files
            assert done.parts.rotation.place.root == run.integration.worktree(lane)
        second = launched(run, executor)
        assert {p: d.parts for p, d in second.items()} == {p: d.parts for p, d in first.items()}


def test_meanwhile_runs_its_work_beside_the_block_and_waits_for_it() -> None:
    inside, ended = threading.Event(), []

    def work() -> None:
        assert inside.wait(60)  # the block is running: side by side
        ended.append(threading.current_thread().name)

    with meanwhile(work):
        inside.set()
    assert ended == ["lanes-meanwhile"]  # ended when the block had


def test_meanwhile_raises_what_its_work_raised_in_the_caller() -> None:
    def work() -> None:
        raise OSError("a worktree would not go")

    with pytest.raises(OSError, match="would not go"), meanwhile(work):
        pass


def test_what_a_lane_s_thread_is_handed_and_returns_is_frozen() -> None:
    values: tuple[Any, ...] = (lanework.LaneTurn, lanework.LaneDone, lanework.LaneParts)
    for value in (*values, lanework.Running):
        assert value.__dataclass_params__.frozen, value
    assert not hasattr(lanework, "LaneWork")


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


CHECKED = """---
checks:
  - name: x is one
    method: external
    config:
      command: grep -q "^x = 1$" config.txt
---
# a
"""


@pytest.mark.slow  # a spec's check is a command ralph runs
def test_refused_work_never_becomes_the_base_its_agent_returns_to(project: Project) -> None:
    """a's DONE counts (x = 1), then a DONE weakens it (x = 2) and is refused; the agent's
    natural recovery, `git checkout -- config.txt`, must bring back the work that counted, as
    in the project's own tree: the lane's branch never holds refused work."""
    lanes_project(project, {A: CHECKED, B: "# b\n"})
    recover = "git checkout -- config.txt"
    steps: dict[str, Any] = {
        A: [
            {"write": {"config.txt": "x = 1\n"}, "signal": "DONE"},
            {"write": {"config.txt": "x = 2\n"}, "signal": "DONE"},  # refused
            {"run": recover, "signal": "DONE"},
            {"signal": "DONE"},
        ],
        B: WORK[B],
    }
    said: list[Event] = []
    code = run_loop(options(project, steps, parallel=2, max_iterations=12), said.append)
    assert code == ExitCode.OK
    signals = [e.signal for e in said if isinstance(e, RotationEnded) and e.spec == A]
    assert signals[:3] == ["DONE", "REFUSED", "DONE"]  # recovered at once
    assert (project.root / "config.txt").read_text() == "x = 1\n"
    history = project.git("log", "--all", "-p", "--format=%s")
    assert "x = 2" not in history  # never committed, so never merged either
    assert f"on {A} (DONE)" in history  # the control: counted work is committed as before
