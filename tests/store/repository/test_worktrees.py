"""store/repository/worktrees.py: lanes' worktrees at the place ralph computes, on their branches;
what
is not ralph's at that place is never touched; no lane commit is lost by a removal; a merge
that conflicts is aborted and said.

Whole lanes runs are tests/e2e/test_lanes*.py's."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ralph.errors import RepositoryError, StateError, UnsafePath
from ralph.rules.counts.lanes import lane_name
from ralph.store.repository import worktrees as wt
from ralph.store.repository.git import GitLock, Repo
from tests.conftest import Project

NAME = lane_name("specs/a.spec.md")


def _project(p: Project) -> Repo:
    p.write({".gitignore": ".ralph/\n", "app.py": "a\n"})
    p.git("checkout", "-q", "-b", "main")
    p.commit_all()
    return wt.repo(p.root, GitLock())


def test_only_a_lane_name_has_a_place(tmp_path: Path) -> None:
    assert wt.lane_path(tmp_path, NAME) == tmp_path / ".ralph" / "worktrees" / NAME
    for name in ("../../etc", "main", "a/b", ""):
        with pytest.raises(UnsafePath, match="not the name of one of ralph's lanes"):
            wt.lane_path(tmp_path, name)


def test_a_folder_that_is_not_the_top_of_a_repository_is_refused(project: Project) -> None:
    with pytest.raises(StateError, match="--parallel needs a git repository"):
        wt.repo(project.root, GitLock())


def test_a_lanes_worktree_is_made_on_its_branch_and_is_ralphs(git_project: Project) -> None:
    p = git_project
    r = _project(p)
    wt.add_worktree(r, p.root, NAME, "main")
    assert wt.not_owned(r, p.root, NAME) is None
    assert wt.current_branch(wt.lane_repo(p.root, NAME, r.lock)) == f"ralph/{NAME}"
    wt.add_worktree(r, p.root, NAME, "main")  # left by an earlier run: used again


def test_what_is_not_ralphs_at_a_lanes_place_is_said_and_left(
    git_project: Project, tmp_path: Path
) -> None:
    p = git_project
    r = _project(p)
    place = wt.lane_path(p.root, NAME)
    place.parent.mkdir(parents=True)
    place.mkdir()
    (place / "mine.txt").write_text("the person's")
    assert wt.not_owned(r, p.root, NAME) == "git lists no worktree there"
    with pytest.raises(RepositoryError, match="not ralph's"):
        wt.add_worktree(r, p.root, NAME, "main")
    assert not wt.discard_worktree(r, p.root, NAME)
    assert (place / "mine.txt").read_text() == "the person's"
    place.rename(tmp_path / "moved")
    place.symlink_to(tmp_path / "moved")
    assert (wt.not_owned(r, p.root, NAME) or "").startswith("it leads to")
    assert not wt.discard_worktree(r, p.root, NAME)
    assert (tmp_path / "moved" / "mine.txt").exists()


def test_a_worktree_on_another_branch_is_not_ralphs(git_project: Project) -> None:
    p = git_project
    r = _project(p)
    wt.add_worktree(r, p.root, NAME, "main")
    p.git("-C", str(wt.lane_path(p.root, NAME)), "checkout", "-q", "-b", "elsewhere")
    assert wt.not_owned(r, p.root, NAME) == f"git lists it on elsewhere, not ralph/{NAME}"
    with pytest.raises(RepositoryError, match="no longer ralph's"):
        wt.lane_repo(p.root, NAME, r.lock)


def test_removing_a_lane_loses_no_commit_discarding_it_does_what_it_says(
    git_project: Project,
) -> None:
    p = git_project
    r = _project(p)
    wt.add_worktree(r, p.root, NAME, "main")
    lane = wt.lane_repo(p.root, NAME, r.lock)
    (wt.lane_path(p.root, NAME) / "new.py").write_text("lane work\n")
    assert not wt.remove_worktree(r, p.root, NAME)  # uncommitted work: kept
    assert wt.commit_all(lane, "lane work")
    assert not wt.commit_all(lane, "nothing more")
    assert not wt.remove_worktree(r, p.root, NAME)  # committed, not merged: the branch kept
    assert wt.has_branch(r, f"ralph/{NAME}")
    assert wt.discard_worktree(r, p.root, NAME)
    assert not wt.has_branch(r, f"ralph/{NAME}") and not wt.lane_path(p.root, NAME).exists()


def test_a_merged_lane_is_removed_with_its_branch(git_project: Project) -> None:
    p = git_project
    r = _project(p)
    wt.add_worktree(r, p.root, NAME, "main")
    lane = wt.lane_repo(p.root, NAME, r.lock)
    (wt.lane_path(p.root, NAME) / "new.py").write_text("lane work\n")
    wt.commit_all(lane, "lane work")
    merged = wt.merge(r, f"ralph/{NAME}", "merge the lane")
    assert merged.ok and merged.changed and wt.is_merged(r, f"ralph/{NAME}")
    assert wt.remove_worktree(r, p.root, NAME)
    assert not wt.has_branch(r, f"ralph/{NAME}")


def test_a_conflicting_merge_is_aborted_and_names_its_files(git_project: Project) -> None:
    p = git_project
    r = _project(p)
    wt.add_worktree(r, p.root, NAME, "main")
    lane = wt.lane_repo(p.root, NAME, r.lock)
    (wt.lane_path(p.root, NAME) / "app.py").write_text("the lane's\n")
    wt.commit_all(lane, "lane")
    p.write({"app.py": "main's\n"})
    wt.commit_all(r, "main")
    merged = wt.merge(r, f"ralph/{NAME}", "merge the lane")
    assert merged.conflicts == ("app.py",) and not merged.ok
    assert not wt.merging(r) and (p.root / "app.py").read_text() == "main's\n"


def test_ralphs_commits_never_hold_dot_ralph(git_project: Project) -> None:
    p = git_project
    r = _project(p)
    (p.root / ".gitignore").write_text("")  # the agent's: .ralph/ no longer ignored
    (p.root / ".ralph").mkdir()
    (p.root / ".ralph" / "notes.md").write_text("ralph's\n")
    assert wt.commit_all(r, "the agent's work")
    assert ".ralph/notes.md" not in p.git("show", "--name-only", "--format=", "HEAD").split()


def test_a_commit_of_all_leaves_ralph_s_own_reports_by_name(git_project: Project) -> None:
    p = git_project
    r = _project(p)
    p.write({"r[1].json": "{}\n", "r1.json": "the work\n"})  # a name that reads as a pattern
    assert wt.commit_all(r, "the work", leave=("r[1].json",))
    assert wt.uncommitted(r) == ["r[1].json"]  # control: r1.json was committed
    assert not wt.commit_all(r, "nothing", leave=("r[1].json",))  # only the report: nothing


def test_a_lanes_submodule_is_never_entered_and_keeps_its_worktree(
    git_project: Project, tmp_path: Path
) -> None:
    p = git_project
    r = _project(p)
    origin, ran = tmp_path / "lib-origin", tmp_path / "ran"
    origin.mkdir()
    p.git("-C", str(origin), "init", "-q")
    (origin / "a.txt").write_text("a\n")
    (origin / ".gitattributes").write_text("*.txt filter=x\n")
    p.git("-C", str(origin), "add", "-A")
    p.git("-C", str(origin), "commit", "-qm", "lib")
    wt.add_worktree(r, p.root, NAME, "main")
    place = wt.lane_path(p.root, NAME)
    lane = wt.lane_repo(p.root, NAME, r.lock)
    # the lane's agent registers a submodule whose own config names a filter, and edits it
    add = ("submodule", "add", "-q", str(origin), "lib")
    p.git("-C", str(place), "-c", "protocol.file.allow=always", *add)
    p.git("-C", str(place / "lib"), "config", "filter.x.clean", f"sh -c 'touch {ran}; cat'")
    p.git("-C", str(place), "config", "-f", ".gitmodules", "submodule.lib.ignore", "none")
    st = (place / "lib" / "a.txt").stat()
    (place / "lib" / "a.txt").write_text("A\n")  # same size, later mtime: git would read it
    os.utime(place / "lib" / "a.txt", ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    (place / "new.py").write_text("lane work\n")
    assert wt.uncommitted(lane) == [".gitmodules", "lib", "new.py"]  # its commit: read, no more
    assert wt.commit_all(lane, "lane work")
    assert wt.unchanged_since_taken(lane, "main", "lib") is not None
    assert not ran.exists()
    assert wt.merge(r, f"ralph/{NAME}", "merge the lane").ok
    assert not wt.remove_worktree(r, p.root, NAME)  # its submodule may hold work: kept
    assert (place / "lib" / "a.txt").read_text() == "A\n"
    p.git("-C", str(place), "add", "-A")  # the control: git's own add goes in, and runs it
    assert ran.exists()


def test_what_a_branch_changed_since_a_lane_parted_from_it(git_project: Project) -> None:
    # a lane holding uncommitted work takes the branch when nothing it changed is that work
    p = git_project
    r = _project(p)
    wt.add_worktree(r, p.root, NAME, "main")
    lane = wt.lane_repo(p.root, NAME, r.lock)
    assert wt.incoming(lane, "main") == []
    p.write({"b.py": "b\n", "app.py": "main's\n"})
    wt.commit_all(r, "main")
    assert sorted(wt.incoming(lane, "main") or []) == ["app.py", "b.py"]
    assert wt.incoming(lane, "no-such-branch") is None
