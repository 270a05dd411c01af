"""store/snapshots/indexflags.py: a person's skip-worktree and assume-unchanged flags keep working;
a
flag set while ralph ran (the agent's) is looked through, now and at every later run.

Whole runs with an agent that hides its change so are tests/e2e/test_hidden_changes.py's."""

from __future__ import annotations

import json
from pathlib import Path

from ralph.store.repository import git
from ralph.store.snapshots.indexflags import FLAGS_FILE, IndexFlags
from tests.conftest import Project


def _repo(p: Project) -> git.Repo:
    p.write({"app.py": "a\n", "local.cfg": "person's\n", "b.py": "b\n"})
    p.commit_all()
    return git.find_repo(p.root)


def _flags(p: Project, tmp_path: Path) -> IndexFlags:
    return IndexFlags(git.find_repo(p.root), tmp_path / FLAGS_FILE)


def test_a_flag_there_at_the_first_look_is_the_persons(
    git_project: Project, tmp_path: Path
) -> None:
    p = git_project
    _repo(p)
    p.git("update-index", "--skip-worktree", "local.cfg")
    flags = _flags(p, tmp_path)
    assert flags.person == {"local.cfg"}
    assert flags.hidden() == {}
    assert set(flags.blobs) == {"app.py", "local.cfg", "b.py"}


def test_a_flag_set_while_ralph_looks_is_looked_through(
    git_project: Project, tmp_path: Path
) -> None:
    p = git_project
    _repo(p)
    flags = _flags(p, tmp_path)
    p.git("update-index", "--skip-worktree", "app.py")
    p.git("update-index", "--assume-unchanged", "b.py")
    blob = p.git("rev-parse", ":app.py").strip()
    hidden = flags.hidden()
    assert set(hidden) == {"app.py", "b.py"} and hidden["app.py"] == blob
    assert flags.rewritten
    # and at the next run: ralph's record says it saw it appear
    assert set(_flags(p, tmp_path).hidden()) == {"app.py", "b.py"}


def test_a_flag_that_appeared_while_ralph_was_away_is_the_persons(
    git_project: Project, tmp_path: Path
) -> None:
    p = git_project
    _repo(p)
    _flags(p, tmp_path)
    p.git("update-index", "--skip-worktree", "local.cfg")  # between two runs
    assert _flags(p, tmp_path).person == {"local.cfg"}


def test_a_damaged_record_trusts_no_more_than_what_is_flagged_now(
    git_project: Project, tmp_path: Path
) -> None:
    p = git_project
    _repo(p)
    p.git("update-index", "--skip-worktree", "app.py")
    for text in ("{cut", "[]", json.dumps({"person": "app.py", "seen": []})):
        (tmp_path / FLAGS_FILE).write_text(text)
        assert _flags(p, tmp_path).person == {"app.py"}, text


def test_a_person_who_lifts_a_flag_and_sets_it_again_keeps_it(
    git_project: Project, tmp_path: Path
) -> None:
    p = git_project
    _repo(p)
    p.git("update-index", "--skip-worktree", "local.cfg")
    _flags(p, tmp_path)
    p.git("update-index", "--no-skip-worktree", "local.cfg")
    _flags(p, tmp_path)  # seen unflagged: no longer the person's
    p.git("update-index", "--skip-worktree", "local.cfg")
    assert _flags(p, tmp_path).person == {"local.cfg"}  # set again while ralph was away


def test_a_status_refresh_is_no_rewrite(git_project: Project, tmp_path: Path) -> None:
    p = git_project
    repo = _repo(p)
    flags = _flags(p, tmp_path)
    (p.root / "app.py").touch()
    git.status(repo)  # may refresh the index's stat data
    flags.after_status()
    assert flags.hidden() == {} and not flags.rewritten


def test_nothing_flagged_leaves_no_record(git_project: Project, tmp_path: Path) -> None:
    _repo(git_project)
    _flags(git_project, tmp_path)
    assert not (tmp_path / FLAGS_FILE).exists()
