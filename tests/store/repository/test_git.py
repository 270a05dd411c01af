"""store/repository/git.py: git for snapshots, on the repository found at start and on what is on
disk.

What git is kept from running (hooks, drivers, another repository) is in
tests/store/repository/test_gitguard.py and tests/e2e/test_git_guard.py; here, what ralph asks git
and
how it reads the answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.errors import RepositoryError, StateError
from ralph.store.repository import git
from ralph.store.repository.git import Repo, _parse_status, commit_changes, find_repo, ignore_files
from ralph.store.snapshots import ignorebase
from tests.conftest import Project


def _repo(p: Project, files: dict[str, str] | None = None) -> Repo:
    p.write(files or {"a.py": "a\n"})
    p.commit_all()
    return find_repo(p.root)


def test_a_folder_outside_any_repository_is_walked(project: Project) -> None:
    found = find_repo(project.root)
    assert found == Repo(project.root)
    assert not found.usable and found.pinned == ()


def test_a_repository_is_found_with_its_prefix_and_pinned(git_project: Project) -> None:
    p = git_project
    _repo(p, {"sub/dir/a.py": "a\n"})
    found = find_repo(p.root / "sub" / "dir")
    assert found.usable and found.prefix == b"sub/dir/" and found.algo == "sha1"
    assert found.top == str(p.root.resolve())
    assert found.pinned == (f"--git-dir={found.git_dir}", f"--work-tree={found.top}")
    assert found.index == Path(found.git_dir, "index")


def test_a_project_in_an_ignored_folder_is_walked_not_asked(git_project: Project) -> None:
    p = git_project
    _repo(p, {".gitignore": "vendor/\n", "vendor/lib/x.py": "x\n"})
    found = find_repo(p.root / "vendor" / "lib")
    assert not found.usable and found.prefix == b"vendor/lib/"


def test_status_lists_changed_untracked_and_ignored_by_the_roots_names(
    git_project: Project,
) -> None:
    p = git_project
    _repo(p, {".gitignore": "*.log\nbuild/\n", "sub/a.py": "a\n", "top.py": "t\n"})
    p.write({"sub/a.py": "changed\n", "sub/new.py": "n\n", "sub/x.log": "l", "sub/build/o": "o"})
    p.write({"top.py": "changed, outside the root\n"})
    found = git.status(find_repo(p.root / "sub"))
    assert len(found.head) == 40
    assert found.changed == ["a.py"]
    assert found.untracked == ["new.py"]
    assert sorted(found.ignored) == ["build/", "x.log"]


def test_a_replacement_ref_changes_no_commits_meaning(git_project: Project) -> None:
    p = git_project
    repo = _repo(p, {"a.py": "a\n"})
    old = p.git("rev-parse", "HEAD").strip()
    p.write({"a.py": "changed\n"})
    p.commit_all("second")
    new = p.git("rev-parse", "HEAD").strip()
    p.git("replace", new, old)  # the agent's: "the new commit is the old one"
    # the control: git as configured now sees no change
    assert p.git("diff-tree", "-r", old, new) == ""
    assert set(commit_changes(repo, old, new, lambda rel, _: False) or {}) == {"a.py"}


def test_status_before_the_first_commit_has_no_head(git_project: Project) -> None:
    git_project.write({"a.py": "a\n"})
    found = git.status(find_repo(git_project.root))
    assert found.head == "" and found.untracked == ["a.py"]


OID = "1" * 40


def test_a_rename_changes_both_paths_but_those_outside_the_root() -> None:
    out = b"\0".join(
        [
            b"# branch.oid " + OID.encode(),
            b"2 R. N... 100644 100644 100644 aa bb R100 sub/new name.py",
            b"sub/old.py",
            b"2 R. N... 100644 100644 100644 aa bb R100 sub/moved.py",
            b"elsewhere/moved.py",
            b"u UU N... 100644 100644 100644 100644 aa bb cc sub/both.py",
            b"1 .M N... 100644 100644 100644 aa bb sub/with spaces.py",
            b"? sub/new.txt",
            b"! sub/cache/",
            b"",
        ]
    )
    found = _parse_status(out, b"sub/")
    assert found.head == OID
    assert found.changed == ["new name.py", "old.py", "moved.py", "both.py", "with spaces.py"]
    assert found.untracked == ["new.txt"] and found.ignored == ["cache/"]


@pytest.mark.parametrize(
    ("out", "said"),
    [
        (b"X what is this\0", "an entry ralph does not understand"),
        (b"# branch.oid ../../etc\0", "an unexpected HEAD"),
    ],
)
def test_a_status_ralph_cannot_read_is_refused_in_one_line(out: bytes, said: str) -> None:
    with pytest.raises(StateError, match=said):
        _parse_status(out, b"")


def test_what_a_commit_changed_by_blob(git_project: Project) -> None:
    p = git_project
    repo = _repo(p, {"a.py": "a\n", "b.py": "b\n", "skip.txt": "s\n"})
    old = p.git("rev-parse", "HEAD").strip()
    p.write({"a.py": "a2\n", "skip.txt": "s2\n", "c.py": "c\n"})
    (p.root / "b.py").unlink()
    p.commit_all("second")
    new = p.git("rev-parse", "HEAD").strip()
    changes = commit_changes(repo, old, new, lambda rel, _: rel == "skip.txt")
    assert changes is not None
    assert set(changes) == {"a.py", "b.py", "c.py"}
    assert changes["b.py"][1] == "0" * 40 and changes["c.py"][0] == "0" * 40
    blob = p.git("rev-parse", f"{new}:a.py").strip()
    assert changes["a.py"][1] == blob
    first = commit_changes(repo, "", old, lambda rel, _: False)  # from the empty tree
    assert first is not None and set(first) == {"a.py", "b.py", "skip.txt"}


@pytest.mark.parametrize("bad", ["HEAD", "--output=/tmp/x", "1234", "0" * 40])
def test_a_commit_that_is_no_id_rules_nothing_out(git_project: Project, bad: str) -> None:
    repo = _repo(git_project)
    head = git_project.git("rev-parse", "HEAD").strip()
    assert commit_changes(repo, bad, head, lambda rel, _: False) is None


def test_the_gitignore_files_above_and_below_the_root(git_project: Project) -> None:
    p = git_project
    _repo(
        p,
        {
            ".gitignore": "skipped/\n",
            "app/.gitignore": "*.log\n",
            "app/src/.gitignore": "tmp/\n",
            "app/skipped/.gitignore": "inside an ignored folder\n",
        },
    )
    p.write({"app/new/.gitignore": "untracked\n"})
    found = ignore_files(find_repo(p.root / "app"))
    assert found == [".gitignore", "app/.gitignore", "app/new/.gitignore", "app/src/.gitignore"]


def test_the_excludes_file_is_configs_else_gits_default(
    git_project: Project, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    repo = _repo(git_project)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "cfg"))
    assert git.excludes_file(repo) == tmp_path / "cfg" / "git" / "ignore"
    git_project.git("config", "core.excludesFile", str(tmp_path / "mine"))
    assert git.excludes_file(repo) == tmp_path / "mine"
    assert git.info_exclude(repo) == git_project.root / ".git" / "info" / "exclude"


def test_a_failing_git_command_is_one_line_of_what_git_said(git_project: Project) -> None:
    repo = _repo(git_project)
    (git_project.root / ".git" / "index").write_bytes(b"not an index")
    with pytest.raises(StateError, match=r"`git status` failed: .*index"):
        git.status(repo)


def test_a_driver_written_while_ralphs_git_ran_is_refused(git_project: Project) -> None:
    repo = _repo(git_project)
    # the control: a config change that names no program goes on
    git.call(repo, "config", "user.name", "someone")
    with pytest.raises(RepositoryError, match=r"gained a program \(filter\.x\.clean\)"):
        git.call(repo, "config", "filter.x.clean", "touch pwned")


class CountingLock(git.GitLock):
    """The run's lock, counting the git commands that held it."""

    def __init__(self) -> None:
        super().__init__()
        self.held = 0

    def __enter__(self) -> git.GitLock:
        self.held += 1
        return super().__enter__()


def test_the_acceptors_git_holds_the_lock_of_the_run_that_asks(git_project: Project) -> None:
    """An Accept during a lanes run (the escalation's) reads the ignore rules and the tests
    with git: under the run's one lock, never beside a lane's git."""
    from ralph.checks.acceptance import Scope
    from ralph.checks.acceptors import accept_all, pending_all
    from ralph.rules.counts.state import State

    _repo(git_project, {".gitignore": ".ralph/\n", "test_a.py": "def test_a(): pass\n"})
    ignorebase.accept_ignore_rules(git_project.root)  # the rules a person set
    (git_project.root / ".gitignore").write_text(".ralph/\n*.py\n")  # waits for a person
    run = CountingLock()
    scope = Scope(git_project.root, git_project.root / ".ralph", git=run)
    items = pending_all(scope, State())
    assert any(i.kind == "ignore rules" for i in items)
    asked = run.held
    assert asked > 0
    accept_all(scope, State(), items)
    assert run.held > asked
    # the control: `ralph accept` (no run) has a lock of its own; the run's is not touched
    asked = run.held
    pending_all(Scope(git_project.root, git_project.root / ".ralph"), State())
    assert run.held == asked
