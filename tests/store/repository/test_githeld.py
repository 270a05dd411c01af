"""store/repository/githeld.py: where git holds a file a person wants to seal (its index, any
commit of
any ref or reflog, its object store by the very bytes); nowhere is None.

What `ralph seal` does with the answer is tests/commands/test_seal.py's."""

from __future__ import annotations

import pytest

from ralph.store.repository.githeld import held_by_git
from tests.conftest import Project

SECRET = b"def test_hidden():\n    assert True\n"


def _project(p: Project) -> None:
    p.write({"sub/README.md": "r\n"})
    p.commit_all()
    (p.root / "sub" / "tests").mkdir()
    (p.root / "sub" / "tests" / "test_x.py").write_bytes(SECRET)


def test_a_file_git_never_saw_is_held_nowhere(git_project: Project) -> None:
    _project(git_project)
    assert held_by_git(git_project.root / "sub", "tests/test_x.py", SECRET) is None


def test_no_repository_holds_nothing(project: Project) -> None:
    project.write({"t.py": "x"})
    assert held_by_git(project.root, "t.py", b"x") is None


@pytest.mark.parametrize(
    ("where", "said"),
    [
        ("index", "it is in git's index"),
        ("commit", "a commit holds it"),
        ("stash", "a commit holds it"),
        ("reflog", "a commit holds it"),
        ("branch", "a commit holds it"),
        ("dangling", "git's object store holds its bytes"),
        ("renamed", "git's object store holds its bytes"),
    ],
)
def test_each_place_git_keeps_a_file_is_found(git_project: Project, where: str, said: str) -> None:
    p = git_project
    _project(p)
    rel = "sub/tests/test_x.py"
    if where == "index":
        p.git("add", rel)
    elif where in ("commit", "reflog"):
        p.commit_all("with the tests")
        p.git("rm", "-q", "--cached", rel)
        p.git("commit", "-qm", "gone")
        if where == "reflog":  # the commit is reachable from the reflog alone
            p.git("reset", "-q", "--hard", "HEAD~2")
            (p.root / rel).parent.mkdir(parents=True, exist_ok=True)
            (p.root / rel).write_bytes(SECRET)
    elif where == "branch":  # on another branch only
        p.git("switch", "-q", "-c", "other")
        p.commit_all("with the tests")
        p.git("switch", "-q", "-")
        (p.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (p.root / rel).write_bytes(SECRET)
        p.git("reflog", "expire", "--expire=now", "--all")  # the branch alone holds it
    elif where == "stash":
        p.git("stash", "-q", "-u")
        p.git("stash", "apply", "-q")
    elif where == "dangling":
        p.git("add", rel)
        p.git("rm", "-q", "--cached", rel)
    else:  # the same bytes under another name, added and taken back
        (p.root / "other.py").write_bytes(SECRET)
        p.git("add", "other.py")
        p.git("rm", "-q", "--cached", "other.py")
    found = held_by_git(p.root / "sub", "tests/test_x.py", SECRET)
    assert found is not None and found.startswith(said), found


def test_a_name_with_a_wildcard_is_that_name_alone(git_project: Project) -> None:
    p = git_project
    _project(p)
    p.git("add", "sub/tests/test_x.py")  # held; `test_*.py` must not match it
    (p.root / "sub" / "tests" / "test_*.py").write_bytes(b"other bytes\n")
    assert held_by_git(p.root / "sub", "tests/test_*.py", b"other bytes\n") is None
