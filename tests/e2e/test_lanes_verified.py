"""A lanes run reports verified only what is in the user's branch: a spec may be 3/3 at the
end only if its lane's work is there, and the final verification judges that branch's tree.

The attack: a lane's agent leaves its work where ralph's commit of the lane cannot take it
(an unresolved merge of its own in the lane's worktree), then says DONE three times. Before
the rule, the lane "merged" with nothing of that work, the run ended 0 with the spec at 3/3,
and removing the merged lane's worktree deleted the work."""

from __future__ import annotations

import sys

import pytest

from ralph.rules.counts.lanes import lane_name
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="a shell step"),
]

SPECS = {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n- [ ] b.txt exists\n"}
GIT = "git -c user.name=t -c user.email=t@t"
# In b's lane: a commit of its own, and a merge of a side branch left unresolved in its
# worktree: ralph's commit of the lane never commits conflict markers, so b.txt stays out.
UNRESOLVED = (
    f"{GIT} checkout -q -b side && echo side > f.txt && {GIT} add f.txt && "
    f"{GIT} commit -qm side && {GIT} checkout -q - && echo lane > f.txt && "
    f"{GIT} add f.txt && {GIT} commit -qm lane && {GIT} merge -q side >/dev/null 2>&1; true"
)


def play(project: Project, first: dict[str, object]) -> tuple[int, str]:
    lanes_project(project, SPECS)
    steps = {
        "specs/a.spec.md": [{"signal": "DONE"}],
        "specs/b.spec.md": [
            {**first, "write": {"b.txt": "b\n"}, "signal": "DONE"},
            {"signal": "DONE"},
        ],
    }
    res = project.run(
        "run", *project.fake(steps), "--parallel", "2", "--headless", "--max-iterations", "12"
    )
    return res.exit_code, res.stdout + res.stderr


def test_work_left_out_of_the_lanes_branch_is_never_verified(project: Project) -> None:
    code, out = play(project, {"run": UNRESOLVED})
    in_branch = "b.txt" in project.git("ls-tree", "--name-only", "main")
    verified = project.counts()["specs/b.spec.md"] == 3
    assert not (verified and not in_branch), out  # 3/3 only with its work in the branch
    assert code != 0 or in_branch, out
    lane = project.root / ".ralph" / "worktrees"
    kept = list(lane.glob("b-*/b.txt")) if lane.is_dir() else []
    assert in_branch or kept, "the lane's work was deleted"  # never lost either


def test_the_honest_lane_is_verified_with_its_work_in_the_branch(project: Project) -> None:
    code, out = play(project, {})  # the control: the same lane, its work committed by ralph
    assert code == 0, out
    assert project.git("show", "main:b.txt") == "b\n"
    assert (project.root / "b.txt").read_text() == "b\n"
    assert project.counts() == dict.fromkeys(SPECS, 3)


def test_changes_made_in_the_projects_tree_are_verified_as_the_branch(project: Project) -> None:
    """An agent that writes into the project's own tree from its lane: the run verifies and
    reports the branch, so the change is committed there first, a change like any other."""
    code, out = play(project, {"run": "echo stray > ../../../stray.txt"})
    assert code == 0, out
    assert "changes in the project's tree committed" in out
    assert project.git("show", "main:stray.txt") == "stray\n"
    assert project.git("status", "--porcelain") == ""  # the tree verified is the branch's


def test_a_verified_specs_lane_branch_with_work_not_merged_is_merged_first(
    project: Project,
) -> None:
    """A lane branch of ralph's with a commit the user's branch lacks (left by a run whose
    record of it was lost): its spec is not counted verified until that work is merged."""
    code, out = play(project, {})
    assert code == 0, out
    lane = f"ralph/{lane_name('specs/b.spec.md')}"
    project.git("branch", lane)
    project.git("worktree", "add", "-q", str(project.root.parent / "side"), lane)
    (project.root.parent / "side" / "b2.txt").write_text("more\n")
    project.git("-C", str(project.root.parent / "side"), "add", "b2.txt")
    project.git("-C", str(project.root.parent / "side"), "commit", "-qm", "b's lane, more")
    project.git("worktree", "remove", str(project.root.parent / "side"))
    res = project.run("run", *project.fake({"*": [{"signal": "DONE"}]}), "--parallel", "2")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert f"its lane's work is not in main ({lane} is not merged)" in res.stdout
    assert project.git("show", "main:b2.txt") == "more\n"
    assert project.counts() == dict.fromkeys(SPECS, 3)


def test_a_verified_run_with_nothing_left_out_runs_nothing_again(project: Project) -> None:
    """The control: the same second run without that branch verifies at once."""
    code, out = play(project, {})
    assert code == 0, out
    ended = len(project.rotation_ends())
    res = project.run("run", *project.fake({"*": [{"signal": "DONE"}]}), "--parallel", "2")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert "is not in main" not in res.stdout
    assert len(project.rotation_ends()) == ended  # no rotation: nothing to review


def test_a_lane_worktree_holding_work_is_never_removed(project: Project) -> None:
    """Removing a merged lane (its branch has nothing the user's lacks) keeps its worktree
    while that holds uncommitted work: removing it would delete the work."""
    from ralph.store.repository import worktrees as wt
    from ralph.store.repository.git import GitLock

    lanes_project(project, SPECS)
    name, lock = lane_name("specs/b.spec.md"), GitLock()
    repo = wt.repo(project.root, lock)
    for left in ("b.txt", None):  # the attack, then the honest control: nothing left
        wt.add_worktree(repo, project.root, name, "main")
        if left:
            (wt.lane_path(project.root, name) / left).write_text("b\n")
        assert wt.remove_worktree(repo, project.root, name) is (left is None)
        assert (wt.lane_path(project.root, name) / "b.txt").exists() is bool(left)
        if left:
            (wt.lane_path(project.root, name) / left).unlink()
