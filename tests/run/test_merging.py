"""run/merging.py: the lanes' one queue into the user's branch, in-process on a real git
repository (a LaneRun opened as `ralph run --parallel 2` opens it, its agent the in-process
scripted one): a merge at 3/3, a conflict, a lane's work left out of the branch, a lane left
by an earlier run. The CLI tests (tests/e2e/test_lanes*.py) play the same through `ralph run`."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from ralph.rules.counts.laneregistry import Lane
from ralph.rules.counts.spec import spec_slug
from ralph.run.events import Event, Notice
from ralph.run.facts import Fact, LaneConflict, LaneMerged
from ralph.run.lanes import LaneRun
from ralph.run.merging import Integration
from ralph.store.disk.workspace import Workspace
from ralph.store.live.cancel import CancelWatch
from ralph.store.live.runlock import RunLock
from ralph.store.repository import worktrees as wt
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project
from tests.run.test_start import TWO, options
from tests.test_run_values import RUN, _writes

A, B = "specs/a.spec.md", "specs/b.spec.md"


@contextmanager
def lane_run(
    project: Project, steps: dict[str, Any] | None = None, **more: Any
) -> Iterator[tuple[LaneRun, list[Event | Fact]]]:
    """A lanes run as `ralph run --parallel 2` starts it (what an earlier run left finished,
    the matrix read), and what it said (its events and facts); the caller plays the rest."""
    said: list[Event | Fact] = []
    opts = options(project, steps or {}, parallel=2, watch=said.append, **more)
    ws = Workspace(project.root)
    ws.ensure()
    with RunLock(ws.dir, agent="scripted") as lock, CancelWatch(ws.dir) as cancel:
        from ralph.run.context import open_run

        run = LaneRun(*open_run(opts, ws, said.append, lock, cancel))
        run.state = run.integration.prepare(run.state)
        run.begin()
        yield run, said


def worked_lane(
    merger: Integration, spec: str, files: dict[str, str], *, commit: bool = True
) -> Lane:
    """The spec's lane open, with `files` written in its worktree (and committed there)."""
    lane, make, _ = merger.open(spec)
    if make is not None:
        make()
    path = merger.worktree(lane)
    for name, text in files.items():
        (path / name).write_text(text)
    if commit:
        assert wt.commit_all(wt.repo(path, merger.run.git), f"work on {spec}")
    return merger.lanes.get(spec) or lane


def at(run: LaneRun, **counts: int) -> None:
    """Specs `a`, `b` at these DONE counts (saved, as the scheduler saves)."""
    for name, n in counts.items():
        row = run.state.get(f"specs/{name}.spec.md")
        assert row is not None
        run.state = run.state.with_spec(replace(row, done_count=n))  # saved as it is set


def notices(said: list[Event | Fact]) -> list[str]:
    return [e.message for e in said if isinstance(e, Notice)]


def test_a_merge_at_3_3_closes_the_lane_and_drops_the_others_to_review(project: Project) -> None:
    lanes_project(project, TWO)
    with lane_run(project) as (run, said):
        worked_lane(run.integration, A, {"a.txt": "a\n"})
        at(run, a=3, b=3)
        run.integration.verified(A)  # the tree its 3/3 was reached on
        lane = run.integration.lanes.get(A)
        assert lane is not None
        run.state = run.integration.merge(run.state, lane, {A})
        assert run.integration.lanes.get(A) is None  # closed: out of the queue
        assert A in run.integration.retired  # its worktree kept for a later review
    assert project.counts() == {A: 3, B: 2}  # saved: b's checks ran on a tree that is gone
    assert (project.root / "a.txt").read_text() == "a\n"
    merged = [f for f in said if isinstance(f, LaneMerged)]
    assert [(m.spec, m.changed, m.downgraded, m.closes) for m in merged] == [(A, True, (B,), True)]
    # the line says why b dropped, not only that it did
    assert f"{A}: lane merged into main; {B} 3/3 -> 2/3 for one more review of the merged tree" in (
        notices(said)
    )


def test_a_merge_that_changes_nothing_drops_nothing(project: Project) -> None:
    lanes_project(project, TWO)
    with lane_run(project) as (run, said):
        lane, make, _ = run.integration.open(A)  # a lane with no work of its own
        assert make is not None
        make()
        at(run, a=3, b=3)
        run.integration.verified(A)
        lane = run.integration.lanes.get(A) or lane
        run.state = run.integration.merge(run.state, lane, {A})
    assert project.counts() == {A: 3, B: 3}
    assert [f.changed for f in said if isinstance(f, LaneMerged)] == [False]


def test_a_conflict_holds_the_spec_and_writes_its_handoff(project: Project) -> None:
    lanes_project(project, {**TWO, "x.txt": "base\n"})
    with lane_run(project) as (run, said):
        worked_lane(run.integration, A, {"x.txt": "lane a\n"})
        worked_lane(run.integration, B, {"b.txt": "b\n"})
        project.write({"x.txt": "main\n"})
        project.commit_all("main moved on")
        at(run, a=3, b=3)
        for spec in TWO:
            lane = run.integration.lanes.get(spec)
            assert lane is not None
            run.state = run.integration.merge(run.state, lane, set(TWO))
        held = run.integration.lanes.get(A)
        assert held is not None and held.conflict == ("x.txt",)  # still open, for its agent
        assert run.integration.unresolved(A)
        assert not run.integration.unresolved(B)  # the honest merge
    assert project.counts()[A] == 0  # no DONE counts until its agent resolves it
    assert (project.root / "x.txt").read_text() == "main\n"  # aborted: nothing half merged
    assert not wt.merging(wt.repo(project.root, run.shared.git))
    handoff = run.shared.ws.handoff(spec_slug(A))
    assert "conflicts in x.txt" in handoff.read_text()
    assert "git merge main" in handoff.read_text()
    assert not run.shared.ws.handoff(spec_slug(B)).exists()
    conflicts = [f for f in said if isinstance(f, LaneConflict)]
    assert [(c.spec, c.files, c.during) for c in conflicts] == [(A, ("x.txt",), "merge")]


def _main_moved_under_a_s_lane(project: Project, run: LaneRun, main_writes: str) -> Lane:
    """a's lane at 2/3 with its x.txt; main then changes `main_writes` and goes on."""
    lane = worked_lane(run.integration, A, {"x.txt": "lane a\n"})
    project.write({main_writes: "main\n"})
    project.commit_all("main moved on")
    at(run, a=2, b=2)
    return lane


def test_an_update_that_conflicts_holds_the_spec_and_its_lane_keeps_it(project: Project) -> None:
    lanes_project(project, {**TWO, "x.txt": "base\n"})
    with lane_run(project) as (run, said):
        lane = _main_moved_under_a_s_lane(project, run, "x.txt")
        run.state = run.integration.update(run.state, lane)
        held = run.integration.lanes.get(A)
        assert held is not None and held.conflict == ("x.txt",)  # its agent's to resolve
        assert run.integration.unresolved(A)
        lane_repo = wt.repo(run.integration.worktree(lane), run.shared.git)
        assert not wt.merging(lane_repo)  # aborted: the lane is as its agent left it
        assert (run.integration.worktree(lane) / "x.txt").read_text() == "lane a\n"
    assert project.counts() == {A: 0, B: 2}  # saved: no DONE counts until it is resolved
    handoff = run.shared.ws.handoff(spec_slug(A)).read_text()
    assert "conflicts in x.txt" in handoff and "git merge main" in handoff
    conflicts = [f for f in said if isinstance(f, LaneConflict)]
    assert [(c.spec, c.files, c.during) for c in conflicts] == [(A, ("x.txt",), "update")]
    assert any(m.startswith(f"{A}: update of its lane conflicts in x.txt") for m in notices(said))


def test_a_clean_update_brings_main_in_and_holds_nothing(project: Project) -> None:
    lanes_project(project, {**TWO, "x.txt": "base\n"})
    with lane_run(project) as (run, said):
        lane = _main_moved_under_a_s_lane(project, run, "y.txt")
        run.state = run.integration.update(run.state, lane)
        path = run.integration.worktree(lane)
        assert (path / "y.txt").read_text() == "main\n"  # main's work is in the lane
        assert (path / "x.txt").read_text() == "lane a\n"
        assert run.integration.lanes.get(A) == replace(lane, conflict=())
        assert not run.integration.unresolved(A)
    assert project.counts() == {A: 2, B: 2}
    assert not run.shared.ws.handoff(spec_slug(A)).exists()
    assert not [f for f in said if isinstance(f, LaneConflict)]


def test_a_verified_spec_whose_lane_has_unmerged_work_goes_back_to_2_3(project: Project) -> None:
    lanes_project(project, TWO)
    with lane_run(project) as (run, said):
        worked_lane(run.integration, A, {"a.txt": "a\n"})
        at(run, a=3, b=3)
        state = run.integration.unverified(run.state)
    assert state.get(A).done_count == 2  # type: ignore[union-attr]
    assert state.get(B).done_count == 3  # type: ignore[union-attr]
    assert any(
        m.startswith(f"{A}: its lane's work is not in main") and "is not merged" in m
        for m in notices(said)
    )


def test_nothing_left_out_changes_nothing(project: Project) -> None:
    lanes_project(project, TWO)
    with lane_run(project) as (run, said):
        lane = worked_lane(run.integration, A, {"a.txt": "a\n"})
        at(run, a=3, b=3)
        run.integration.verified(A)
        run.state = run.integration.merge(run.state, run.integration.lanes.get(A) or lane, {A})
        before = run.state
        assert run.integration.unverified(before) == before
        assert run.integration.settle(before) == before
    assert not any("is not in main" in m for m in notices(said))


def test_a_lane_left_by_an_earlier_run_is_taken_back_its_work_left_uncounted(
    project: Project,
) -> None:
    lanes_project(project, TWO)
    with lane_run(project) as (run, _):
        lane = worked_lane(run.integration, A, {"a.txt": "a\n"})
        worked_lane(run.integration, A, {"more.txt": "left\n"}, commit=False)  # killed mid-rotation
        worked_lane(run.integration, B, {"b.txt": "b\n"})  # its work all committed
        at(run, a=3, b=3)
    with lane_run(project) as (run, said):  # the next run
        path = run.integration.worktree(lane)
        # not committed: only a counted DONE makes work the lane's base (run/lanework.py)
        assert wt.uncommitted(wt.repo(path, run.shared.git)) == ["more.txt"]
        assert (path / "more.txt").read_text() == "left\n"
    log = project.git("log", "--format=%s", lane.branch)
    assert log.startswith(f"work on {A}")
    assert project.counts() == {A: 2, B: 3}  # unseen work: reviewed again; b's untouched
    assert f"{A}: work left in its lane, not counted yet" in notices(said)
    assert not any(m.startswith(B) for m in notices(said))


def test_the_lanes_registry_has_one_owner_and_one_save_point() -> None:
    """The registry (rules/counts/laneregistry.py) is taken to the next value by its own moves and
    written only by the merger's `_keep`, the one place that saves it."""
    writes = [
        (path.name, cls, owner)
        for path in sorted(RUN.glob("*.py"))
        for cls, owner, attr in _writes(ast.parse(path.read_text()))
        if attr == "lanes"
    ]
    assert writes == [("merging.py", "Integration", "self")] * 2  # __init__ (loaded), _keep
    src = RUN.parent
    savers = [p.name for p in sorted(src.rglob("*.py")) if "save_lanes(" in p.read_text()]
    assert savers == ["merging.py", "lanes.py"]  # the one call, and its definition (store/)
    merging = (RUN / "merging.py").read_text()
    assert merging.count("save_lanes(") == 1
