"""run/lanecheck.py: a lanes run counts a spec verified only with its lane's work in the user's
branch; the tree it verifies is that branch, and changes no merge made in it are committed, a
change like any other. When its lane holds work ralph cannot commit, the spec's handoff tells
its agent what to settle. Whole runs: tests/e2e/test_lanes_verified.py."""

from __future__ import annotations

import subprocess

import pytest

from ralph.errors import StateError
from ralph.rules.counts.laneregistry import Lane, Lanes
from ralph.rules.counts.lanes import lane_name
from ralph.rules.counts.spec import spec_slug
from ralph.rules.counts.state import MAX_COUNT, SpecState, State
from ralph.run.events import Notice
from ralph.run.lanecheck import LeftOut, commit_strays, left_out
from ralph.run.ledger import StateFile
from ralph.run.merging import Integration
from ralph.store.repository import worktrees as wt
from ralph.store.repository.git import GitLock, Repo
from tests.conftest import Project
from tests.run.test_context import shared

A, B = "specs/a.spec.md", "specs/b.spec.md"
STATE = State(specs=(SpecState(A, done_count=MAX_COUNT), SpecState(B, done_count=MAX_COUNT - 1)))


def _project(p: Project) -> Repo:
    p.write({".gitignore": ".ralph/\n", A: "# a\n", B: "# b\n"})
    p.git("checkout", "-q", "-b", "main")
    p.commit_all()
    return wt.repo(p.root, GitLock())


def _lane(p: Project, r: Repo, work: dict[str, str]) -> Repo:
    """A's lane, with `work` committed on its branch when there is some."""
    wt.add_worktree(r, p.root, lane_name(A), "main")
    lane = wt.repo(wt.lane_path(p.root, lane_name(A)), r.lock)
    for name, text in work.items():
        (lane.root / name).write_text(text)
    if work:
        wt.commit_all(lane, "the lane's work")
    return lane


def test_a_tree_switched_to_another_branch_stops_the_run(git_project: Project) -> None:
    r, said = _project(git_project), list[Notice]()
    assert commit_strays(r, "main", (), said.append, STATE) == STATE  # control: on its branch
    git_project.git("checkout", "-q", "-b", "elsewhere")
    with pytest.raises(StateError, match="the project's tree is on elsewhere, but the lanes"):
        commit_strays(r, "main", (), said.append, STATE)


def test_changes_no_merge_made_are_committed_and_every_verified_spec_drops(
    git_project: Project,
) -> None:
    r = _project(git_project)
    said: list[Notice] = []
    git_project.write({"report.json": "{}\n"})  # the run's own report file: never a change
    assert commit_strays(r, "main", ("report.json",), said.append, STATE) == STATE
    assert not said and wt.uncommitted(r) == ["report.json"]
    git_project.write({"app.py": "a person's\n"})
    state = commit_strays(r, "main", ("report.json",), said.append, STATE)
    assert [row.done_count for row in state.specs] == [MAX_COUNT - 1, MAX_COUNT - 1]
    assert said[0].message == f"changes in the project's tree committed; {A} 3/3 -> 2/3"
    assert wt.uncommitted(r) == ["report.json"]  # committed with them, never


def test_a_verified_lane_whose_branch_is_not_merged_is_left_out(git_project: Project) -> None:
    r = _project(git_project)
    lane = _lane(git_project, r, {"a.txt": "a\n"})
    lanes = Lanes("main", (Lane(A),))
    found = left_out(STATE, lanes, {}, r, "main", lambda _: lane)
    assert found == {A: LeftOut(Lane(A).branch)}
    assert found[A].why == f"{Lane(A).branch} is not merged"
    # the same lane retired after its merge, or with no worktree: its branch still counts
    assert left_out(STATE, Lanes("main"), {A: Lane(A)}, r, "main", lambda _: None) == found
    wt.merge(r, Lane(A).branch, "merge a")
    assert left_out(STATE, lanes, {}, r, "main", lambda _: lane) == {}  # control: merged


def test_what_a_verified_lane_s_worktree_holds_is_committed_first(git_project: Project) -> None:
    r = _project(git_project)
    lane = _lane(git_project, r, {})
    assert left_out(STATE, Lanes("main"), {}, r, "main", lambda _: lane) == {}  # nothing
    (lane.root / "a.txt").write_text("left\n")
    found = left_out(STATE, Lanes("main"), {}, r, "main", lambda _: lane)
    assert found == {A: LeftOut(Lane(A).branch)}
    assert wt.uncommitted(lane) == []


def test_a_spec_not_at_three_is_not_looked_at(git_project: Project) -> None:
    r = _project(git_project)
    lane = _lane(git_project, r, {"a.txt": "a\n"})
    state = State(specs=(SpecState(A, done_count=MAX_COUNT - 1),))
    assert left_out(state, Lanes("main", (Lane(A),)), {}, r, "main", lambda _: lane) == {}


def test_an_unresolved_merge_in_the_lane_is_named(git_project: Project) -> None:
    r = _project(git_project)
    lane = _lane(git_project, r, {"a.txt": "the lane's\n"})
    git_project.write({"a.txt": "main's\n"})
    git_project.commit_all("main's a.txt")
    assert not wt.merge(lane, "main", "main into the lane", trees=False).ok
    with pytest.raises(subprocess.CalledProcessError):  # the agent's merge, left unresolved
        git_project.git("-C", str(lane.root), "merge", "main")
    found = left_out(STATE, Lanes("main"), {}, r, "main", lambda _: lane)
    assert found == {A: LeftOut(Lane(A).branch, ("a.txt",))}
    assert found[A].why == "left uncommitted in its worktree: a.txt"


def _unresolved(p: Project, lane: Repo) -> None:
    """main moved on where the lane did, and the lane's agent left its merge unresolved."""
    p.write({"a.txt": "main's\n"})
    p.commit_all("main's a.txt")
    with pytest.raises(subprocess.CalledProcessError):
        p.git("-C", str(lane.root), "merge", "main")


@pytest.mark.parametrize("unresolved", [True, False])
def test_the_agent_is_told_what_its_lane_left_that_ralph_cannot_commit(
    git_project: Project, unresolved: bool
) -> None:
    """The spec back at 2/3 for work its lane's commit cannot take: the handoff its next
    rotation reads says which files and what to do. Control: a lane branch merely not merged
    (ralph merges it itself once the spec is verified again) leaves the handoff alone."""
    r = _project(git_project)
    lane = _lane(git_project, r, {"a.txt": "the lane's\n"})
    if unresolved:
        _unresolved(git_project, lane)
    with shared(git_project, STATE) as (run, start, _):
        state = Integration(run, StateFile(run.ws.state_file)).unverified(start)
        handoff = run.ws.handoff(spec_slug(A))
        note = handoff.read_text() if handoff.exists() else ""
    assert [row.done_count for row in state.specs] == [MAX_COUNT - 1, MAX_COUNT - 1]
    if unresolved:
        assert "work ralph cannot commit (an unresolved merge?) in a.txt" in note
        assert "resolve it" in note and "remove it (`git merge --abort`" in note
    else:
        assert note == ""
