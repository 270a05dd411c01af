"""store/repository/checkout.py: the private store belongs to one checkout of the repository; a
store
an earlier checkout at the same path left is moved aside (never deleted), and said.

A whole run in a project cloned again is tests/e2e/test_private_store.py's."""

from __future__ import annotations

import shutil
from pathlib import Path

from ralph.store.disk.private import ensure_store, store_dir, stores_root
from ralph.store.repository.checkout import ID_FILE, RECORD, claim, foreign, git_folder
from tests.conftest import Project


def test_the_git_folder_is_found_above_the_root_and_through_a_worktree(
    git_project: Project,
) -> None:
    p = git_project
    p.write({"sub/a.py": "a\n"})
    p.commit_all()
    common = (p.root / ".git").resolve()
    assert git_folder(p.root / "sub") == p.root / ".git"
    lane = p.root.parent / "lane"
    p.git("worktree", "add", "-q", str(lane))
    assert git_folder(lane) == common  # a worktree's `.git` file, followed to the common folder


def test_no_repository_no_checkout(project: Project) -> None:
    assert git_folder(project.root) is None
    assert claim(project.root) is None and not foreign(project.root)


def test_a_dot_git_file_that_names_no_git_folder_is_none(tmp_path: Path) -> None:
    (tmp_path / ".git").write_text("not a gitdir line\n")
    assert git_folder(tmp_path) is None


def test_the_first_claim_writes_the_id_both_sides_and_says_nothing(
    git_project: Project,
) -> None:
    root = git_project.root
    ensure_store(root)
    assert claim(root) is None
    own = (root / ".git" / ID_FILE).read_text()
    assert (store_dir(root) / RECORD).read_text() == own and len(own.strip()) == 32
    assert claim(root) is None and (root / ".git" / ID_FILE).read_text() == own
    assert not foreign(root)


def test_a_store_of_an_earlier_checkout_is_moved_aside_and_said(git_project: Project) -> None:
    root = git_project.root
    store = ensure_store(root)
    claim(root)
    (store / "state.json").write_text('{"last_rotation": 9}')
    (store / "run.lock").write_text("")
    # deleted and cloned again at the same path: a new git folder, without the id
    shutil.rmtree(root / ".git")
    git_project.git("init", "-q")
    assert foreign(root)
    said = claim(root)
    assert said is not None and "another checkout" in said
    assert not (store / "state.json").exists() and (store / "run.lock").exists()
    (aside,) = (stores_root() / "replaced").iterdir()
    assert (aside / "state.json").read_text() == '{"last_rotation": 9}' and str(aside) in said
    assert not foreign(root) and claim(root) is None


def test_a_lost_record_is_no_other_checkout(git_project: Project) -> None:
    root = git_project.root
    store = ensure_store(root)
    claim(root)
    (store / RECORD).unlink()
    (store / "state.json").write_text("{}")
    assert not foreign(root)
    assert claim(root) is None and (store / "state.json").exists()
