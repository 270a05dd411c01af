"""store/disk/root.py: which project a command is about, found the way git finds its repository."""

from __future__ import annotations

from pathlib import Path

from ralph.store.disk.root import enclosing_project, find_root


def test_the_root_is_the_nearest_ralph_folder_else_the_git_top(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    deep = repo / "pkg" / "deep"
    deep.mkdir(parents=True)
    assert find_root(deep) == deep  # neither: the folder itself
    (repo / ".git").mkdir()
    assert find_root(deep) == repo  # the git work tree's top
    (repo / "pkg" / ".ralph").mkdir()
    assert find_root(deep) == repo / "pkg"  # a nearer ralph project wins
    # a .ralph/ above the repository belongs to something else
    (tmp_path / ".ralph").mkdir()
    (repo / "pkg" / ".ralph").rmdir()
    assert find_root(deep) == repo
    assert enclosing_project(deep) is None
    (repo / ".ralph").mkdir()
    assert enclosing_project(deep) == repo
    assert enclosing_project(repo) is None  # the project itself is not above itself
