"""store/repository/gitguard.py: ralph's git runs nothing the agent wrote and reads no other
repository.

The attacks through a whole run (lanes, merges, a worktree swapped for a link) are in
tests/e2e/test_git_guard.py; here each rule is met through one git call."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ralph.errors import RepositoryError
from ralph.store.repository import git
from ralph.store.repository.gitguard import Anchor, driver_keys, environment, options
from tests.conftest import Project

LISTED = b"""filter.lfs.clean
filter.lfs.required
Filter.Evil.Smudge
filter.a.b.process
diff.pdf.textconv
diff.pdf.binary
merge.ours.driver
merge.ours.name
core.editor
filter..clean
"""


def test_the_program_naming_keys_of_config_are_found_whatever_their_case() -> None:
    assert driver_keys(LISTED) == (
        "Filter.Evil.Smudge",
        "diff.pdf.textconv",
        "filter.a.b.process",
        "filter.lfs.clean",
        "merge.ours.driver",
    )
    assert driver_keys(b"") == ()


def test_each_driver_is_blanked_and_a_required_filter_let_go() -> None:
    opts = options(("filter.lfs.clean", "diff.pdf.textconv"))
    pairs = [opts[i + 1] for i in range(0, len(opts), 2)]
    assert all(opts[i] == "-c" for i in range(0, len(opts), 2))
    assert "filter.lfs.clean=" in pairs and "filter.lfs.required=false" in pairs
    assert "diff.pdf.textconv=" in pairs and "diff.pdf.required=false" not in pairs
    assert f"core.hooksPath={os.devnull}" in pairs and "core.fsmonitor=false" in pairs


def test_the_environment_keeps_no_variable_that_points_git_elsewhere() -> None:
    base = {
        "PATH": "/bin",
        "GIT_DIR": "/elsewhere/.git",
        "GIT_WORK_TREE": "/elsewhere",
        "GIT_INDEX_FILE": "/tmp/forged",
        "GIT_EXTERNAL_DIFF": "evil",
        "GIT_CONFIG_PARAMETERS": "'core.hookspath'='/evil'",
        "GIT_CONFIG_GLOBAL": "/home/me/.gitconfig",
        "GIT_AUTHOR_NAME": "me",
        "SSH_ASKPASS": "/evil",
    }
    env = environment(base)
    assert set(env) == {
        "PATH",
        "GIT_CONFIG_GLOBAL",
        "GIT_AUTHOR_NAME",
        "GIT_TERMINAL_PROMPT",
        "GIT_PAGER",
        "GIT_EDITOR",
        "GIT_ASKPASS",
    }
    pinned = environment(base, "/p/.git", "", "/p")
    assert (pinned["GIT_DIR"], pinned["GIT_COMMON_DIR"], pinned["GIT_WORK_TREE"]) == (
        "/p/.git",
        "/p/.git",
        "/p",
    )


def _repo(p: Project) -> git.Repo:
    p.write({"a.py": "a\n", ".gitattributes": "*.py filter=x diff=x\n"})
    p.commit_all()
    return git.find_repo(p.root)


def test_a_hook_the_agent_writes_never_runs(git_project: Project) -> None:
    p = git_project
    repo = _repo(p)
    hook = p.root / ".git" / "hooks" / "pre-commit"
    hook.write_text(f"#!/bin/sh\ntouch {p.root.parent}/hooked\n")
    hook.chmod(0o755)
    p.write({"a.py": "b\n"})
    p.git("commit", "-qam", "the control: git as configured runs it")
    assert (p.root.parent / "hooked").exists()
    (p.root.parent / "hooked").unlink()
    p.write({"a.py": "c\n"})
    args = ("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "ralph's")
    assert git.call(repo, *args).returncode == 0
    assert not (p.root.parent / "hooked").exists()


def test_a_filter_or_textconv_the_agent_names_never_runs(git_project: Project) -> None:
    p = git_project
    repo = _repo(p)
    ran = p.root.parent / "ran"
    p.git("config", "filter.x.clean", f"sh -c 'touch {ran}; cat'")
    p.git("config", "filter.x.required", "true")
    p.git("config", "diff.x.textconv", f"sh -c 'touch {ran}; cat'")
    p.write({"a.py": "changed\n"})
    assert git.status(repo).changed == ["a.py"]
    git.call(repo, "diff", "--no-ext-diff", "--textconv")  # fails: no program to convert with
    assert git.call(repo, "add", "a.py").returncode == 0
    assert not ran.exists()


def test_the_repository_found_at_start_is_the_one_every_call_reaches(
    git_project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    repo = _repo(git_project)
    other = tmp_path / "other"
    other.mkdir()
    monkeypatch.setenv("GIT_DIR", str(other / ".git"))
    out = git.call(repo, "rev-parse", "--absolute-git-dir").stdout.decode().strip()
    assert out == str((git_project.root / ".git").resolve())


def test_an_anchor_holds_while_nothing_moves(git_project: Project) -> None:
    repo = _repo(git_project)
    assert repo.anchor is not None
    repo.anchor.check(git_project.root)
    git_project.write({"a.py": "work goes on\n"})
    repo.anchor.check(git_project.root)


def test_a_redirected_commondir_is_refused_in_one_line(git_project: Project) -> None:
    repo = _repo(git_project)
    (git_project.root / ".git" / "commondir").write_text("/elsewhere/.git\n")
    with pytest.raises(RepositoryError, match=r"commondir is not what it was"):
        git.call(repo, "status")


def test_a_dot_git_swapped_for_a_link_is_refused(git_project: Project, tmp_path: Path) -> None:
    p = git_project
    _repo(p)
    top = str(p.root.resolve())
    anchor = Anchor.take(top, f"{top}/.git")
    (p.root / ".git").rename(tmp_path / "moved.git")
    (p.root / ".git").symlink_to(tmp_path / "moved.git")
    with pytest.raises(RepositoryError, match=r"/\.git is not what it was"):
        anchor.check(p.root)


def test_a_gitdir_file_pointing_elsewhere_is_refused(tmp_path: Path) -> None:
    top = tmp_path / "wt"
    top.mkdir()
    (top / ".git").write_text("gitdir: /repo/.git/worktrees/a\n")
    anchor = Anchor.take(str(top), str(tmp_path / "gitdir"))
    (top / ".git").write_text("gitdir: /other/.git/worktrees/a\n")
    with pytest.raises(RepositoryError, match="the git repository changed under ralph"):
        anchor.check(top)


def test_a_dot_git_swapped_for_another_folder_is_refused(
    git_project: Project, tmp_path: Path
) -> None:
    repo = _repo(git_project)
    dot_git = git_project.root / ".git"
    dot_git.rename(tmp_path / "moved.git")
    dot_git.mkdir()  # another repository's, say: same path, another folder
    with pytest.raises(RepositoryError, match="the git repository changed under ralph"):
        git.call(repo, "status")
