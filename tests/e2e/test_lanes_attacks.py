"""Paths ralph computes, never paths it reads (issue 30): whatever an agent writes under
`.ralph/` (a lanes registry naming `../victim`, a link where a lane's worktree was), ralph
neither deletes, checks out nor commits anything outside the lanes' own worktrees; and the
person's own flows (a lanes run, `reset --lanes`, their other worktree) keep working."""

from __future__ import annotations

import json
import os
import shutil
import sys
from pathlib import Path

import pytest

from ralph.rules.counts.lanes import lane_name
from tests.conftest import Project
from tests.e2e.test_lanes import branches, lanes_project, worktrees

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="links and worktrees as on POSIX"),
]

SPECS = {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"}
A = lane_name("specs/a.spec.md")


def victim(project: Project) -> Path:
    """A folder of the person's outside the project, with work in it."""
    folder = project.root.parent / "victim"
    folder.mkdir(exist_ok=True)
    (folder / "precious.txt").write_text("the person's\n")
    return folder


def other_worktree(project: Project) -> Path:
    """The person's other worktree of the same repository, with uncommitted work."""
    other = project.root.parent / "other"
    project.git("worktree", "add", "-q", str(other), "-b", "feature")
    (other / "wip.txt").write_text("uncommitted\n")
    return other


def assert_untouched(project: Project, other: Path) -> None:
    assert (other / "wip.txt").read_text() == "uncommitted\n"
    assert f"worktree {other.resolve()}" in worktrees(project)
    assert "feature" in branches(project)


def open_lanes(project: Project) -> None:
    """A --parallel run stopped by its rotation cap: both lanes open, their work unmerged."""
    steps = {p: [{"write": {f"{Path(p).name[0]}.txt": "x\n"}, "signal": "CONTINUE"}] for p in SPECS}
    res = project.run(
        "run", *project.fake(steps), "--parallel", "2", "--headless", "--max-iterations", "2"
    )
    assert res.exit_code == 3, res
    assert (project.root / ".ralph" / "worktrees" / A / ".git").exists()


def plant_registry(project: Project, target: Path) -> None:
    """`.ralph/lanes.json` as an agent would write it: lanes named after paths outside."""
    lanes = [
        {"spec": "specs/a.spec.md", "name": "../../../" + target.name, "branch": "main"},
        {"spec": "x", "name": str(target), "branch": "feature"},
        {"spec": "y", "name": "..", "branch": "ralph/../../main"},
    ]
    data = {"schema_version": 1, "integration": "main", "lanes": lanes, "merged": []}
    (project.root / ".ralph").mkdir(exist_ok=True)
    (project.root / ".ralph" / "lanes.json").write_text(json.dumps(data))


def test_a_planted_registry_never_leads_reset_lanes_outside(project: Project) -> None:
    lanes_project(project, SPECS)
    target = victim(project)
    open_lanes(project)
    plant_registry(project, target)
    res = project.run("reset", "--lanes", "--yes")
    assert res.exit_code == 0, res
    assert (target / "precious.txt").read_text() == "the person's\n"
    assert "victim" not in res.stdout  # not even offered
    # the honest control: the real lanes were discarded, each path shown
    assert res.stdout.count("lane discarded: specs/") == 2, res.stdout
    assert f"worktree .ralph/worktrees/{A}, branch ralph/{A}" in res.stdout
    assert branches(project) == ["main"]
    assert project.git("status", "--porcelain") == ""


def test_a_planted_registry_never_chooses_where_a_run_checks_out(project: Project) -> None:
    lanes_project(project, SPECS)
    other = other_worktree(project)
    target = victim(project)
    plant_registry(project, target)
    steps = {p: [{"write": {f"{Path(p).name[0]}.txt": "x\n"}, "signal": "DONE"}] for p in SPECS}
    res = project.run("run", *project.fake(steps), "--parallel", "2", "--headless")
    assert res.exit_code == 0, res  # the honest run converges as ever
    assert [p.name for p in target.iterdir()] == ["precious.txt"]  # nothing checked out there
    assert_untouched(project, other)
    assert project.counts() == dict.fromkeys(SPECS, 3)
    assert len(worktrees(project)) == 2  # the project's and the person's other one


@pytest.mark.parametrize("where", ["lane", "folder"])
def test_a_link_to_the_persons_other_worktree_is_never_removed(
    project: Project, where: str
) -> None:
    lanes_project(project, SPECS)
    other = other_worktree(project)
    open_lanes(project)
    lane = project.root / ".ralph" / "worktrees" / A
    shutil.rmtree(lane)
    project.git("worktree", "prune")
    if where == "lane":  # the lane's folder a link to the person's worktree
        lane.symlink_to(other)
    else:  # `.ralph/worktrees` itself a link to a folder where a lane's name leads there
        folder = project.root / ".ralph" / "worktrees"
        elsewhere = project.root.parent / "elsewhere"
        shutil.move(folder, elsewhere)
        (elsewhere / A).symlink_to(other)
        folder.symlink_to(elsewhere)
    res = project.run("reset", "--lanes", "--yes")
    assert_untouched(project, other)
    assert f"left as it is: .ralph/worktrees/{A}" in res.stdout or res.exit_code != 0, res


def test_a_link_left_at_a_merged_lanes_place_is_not_removed_at_the_end_of_a_run(
    project: Project,
) -> None:
    """What `retire` removes as a run ends: folders under `.ralph/worktrees/` whose `ralph/`
    branch is merged. A link there to the person's other worktree stays, and so does it."""
    lanes_project(project, SPECS)
    other = other_worktree(project)
    project.git("branch", "ralph/old-abcdef")  # merged: on main's commit
    (project.root / ".ralph" / "worktrees").mkdir(parents=True)
    (project.root / ".ralph" / "worktrees" / "old-abcdef").symlink_to(other)
    steps = {p: [{"write": {f"{Path(p).name[0]}.txt": "x\n"}, "signal": "DONE"}] for p in SPECS}
    res = project.run("run", *project.fake(steps), "--parallel", "2", "--headless")
    assert res.exit_code == 0, res
    assert_untouched(project, other)
    assert project.counts() == dict.fromkeys(SPECS, 3)


def test_a_run_refuses_a_lane_place_that_is_not_ralphs(project: Project) -> None:
    lanes_project(project, SPECS)
    other = other_worktree(project)
    folder = project.root / ".ralph" / "worktrees"
    folder.mkdir(parents=True)
    (folder / A).symlink_to(other)  # before its lane is ever made
    steps = {p: [{"write": {f"{Path(p).name[0]}.txt": "x\n"}, "signal": "DONE"}] for p in SPECS}
    res = project.run("run", *project.fake(steps), "--parallel", "2", "--headless")
    assert res.exit_code == 1, res
    assert f".ralph/worktrees/{A}: this lane's worktree is no longer ralph's (it leads to" in (
        res.stderr
    )
    assert "Traceback" not in res.stdout + res.stderr
    assert_untouched(project, other)
    assert project.git("-C", str(other), "status", "--porcelain") == "?? wip.txt\n"


def test_specs_with_awkward_names_run_in_lanes(project: Project) -> None:
    specs = {
        "specs/a..b.spec.md": "# a\n",
        "specs/with space.spec.md": "# b\n",
        "specs/x@{1}.spec.md": "# c\n",
        "specs/y.lock.spec.md": "# d\n",
    }
    lanes_project(project, specs)
    steps = {p: [{"write": {f"{n}.txt": "x\n"}, "signal": "DONE"}] for n, p in enumerate(specs)}
    res = project.run("run", *project.fake(steps), "--parallel", "2", "--headless")
    assert res.exit_code == 0, res
    assert project.counts() == dict.fromkeys(specs, 3)
    assert branches(project) == ["main"]


def test_a_worktree_place_swapped_while_git_makes_it_stops_the_run(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The race no check before `git worktree add` closes: `.ralph/worktrees` turned into a
    link between ralph's look and git's. ralph looks again after git: no agent runs there."""
    import subprocess

    lanes_project(project, SPECS)
    elsewhere = project.root.parent / "elsewhere"
    real = subprocess.run(["which", "git"], capture_output=True, text=True, check=True)
    wrapper = project.root.parent / "swapgit" / "git"
    wrapper.parent.mkdir()
    wrapper.write_text(
        "#!/bin/sh\n"
        'case " $* " in *" worktree add "*)\n'
        '  for a in "$@"; do case "$a" in */.ralph/worktrees/*) t="$a";; esac; done\n'
        '  d=$(dirname "$t"); if [ ! -L "$d" ]; then mv "$d" "$d.moved"; '
        f'mkdir -p {elsewhere}; ln -s {elsewhere} "$d"; fi;;\n'
        "esac\n"
        f'exec {real.stdout.strip()} "$@"\n'
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{wrapper.parent}:{os.environ['PATH']}")
    steps = {p: [{"write": {f"{Path(p).name[0]}.txt": "x\n"}, "signal": "DONE"}] for p in SPECS}
    cmd = project.script(steps)
    res = project.run("run", "--agent-command", cmd, "--parallel", "2", "--headless")
    assert res.exit_code == 1, res
    assert "was moved while git made it" in res.stderr, res.stderr
    assert project.calls() == []  # no agent ever ran in the place the link chose
