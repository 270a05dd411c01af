"""run/lanespecs.py: while a spec has a lane, it is read as the lane has it (the agent's ticked
boxes are its own changes), unless a person edited the project's copy since the lane last took
the user's branch. Whole runs: tests/e2e/test_lanes*.py."""

from __future__ import annotations

from ralph.rules.counts.laneregistry import Lane, Lanes
from ralph.rules.counts.lanes import lane_name
from ralph.run.lanespecs import LaneSpecs, lane_heads
from ralph.specs.discovery import read_spec
from ralph.store.repository import worktrees as wt
from ralph.store.repository.git import GitLock, Repo
from tests.conftest import Project

A, B = "specs/a.spec.md", "specs/b.spec.md"
LANES = Lanes("main", (Lane(A),))


def _project(p: Project) -> Repo:
    p.write({".gitignore": ".ralph/\n", A: "# a\n- [ ] a\n", B: "# b\n- [ ] b\n"})
    p.git("checkout", "-q", "-b", "main")
    p.commit_all()
    r = wt.repo(p.root, GitLock())
    wt.add_worktree(r, p.root, lane_name(A), "main")
    (wt.lane_path(p.root, lane_name(A)) / A).write_text("# a\n- [x] a\n")  # the agent ticks
    return r


def _texts(p: Project, specs: LaneSpecs) -> list[str]:
    found = [read_spec(p.root, path) for path in (A, B)]
    return [s.text for s in specs.as_worked_on(LANES, [s for s in found if s])]


def test_a_spec_with_a_lane_is_read_as_the_lane_has_it(git_project: Project) -> None:
    specs = LaneSpecs(_project(git_project), git_project.root)
    assert _texts(git_project, specs) == ["# a\n- [x] a\n", "# b\n- [ ] b\n"]
    # without a lane, the project's copy
    found = [s for s in [read_spec(git_project.root, A)] if s]
    assert [s.text for s in specs.as_worked_on(Lanes("main"), found)] == ["# a\n- [ ] a\n"]


def test_a_person_s_edit_since_the_lane_took_the_branch_is_kept(git_project: Project) -> None:
    specs = LaneSpecs(_project(git_project), git_project.root)
    assert _texts(git_project, specs)[0] == "# a\n- [x] a\n"  # known, then changed
    git_project.write({A: "# a\n- [ ] a\n- [ ] more\n"})
    assert _texts(git_project, specs)[0] == "# a\n- [ ] a\n- [ ] more\n"
    git_project.commit_all("a person's requirement")  # committed: the same
    assert _texts(git_project, specs)[0] == "# a\n- [ ] a\n- [ ] more\n"


def test_a_lane_whose_branch_is_gone_has_no_heads(git_project: Project) -> None:
    r = _project(git_project)
    assert set(lane_heads(r, git_project.root, [Lane(A), Lane(B)])) == {Lane(A).branch}
    lane = wt.lane_path(git_project.root, lane_name(A))
    git_project.git("-C", str(lane), "checkout", "-q", "--detach")  # its worktree stays
    git_project.git("branch", "-D", Lane(A).branch)
    assert lane_heads(r, git_project.root, [Lane(A)]) == {}
    assert _texts(git_project, LaneSpecs(r, git_project.root))[0] == "# a\n- [ ] a\n"
