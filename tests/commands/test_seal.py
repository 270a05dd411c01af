"""commands/seal.py: `ralph seal FILE... --spec SPEC`, `--list` and `ralph unseal FILE`, as a
person meets them: all or nothing, each refusal one line and an exit code.

A run holding the project (exit 1) is tests/e2e/test_sealed.py's; what the store keeps is
tests/store/person/test_sealed.py's."""

from __future__ import annotations

import pytest

from tests.conftest import Project
from tests.store.person.test_sealed import SEALED, SEALED_PATH, calc_project


def test_a_note_when_no_sandbox_is_set(git_project: Project) -> None:
    p = git_project
    calc_project(p, seal=False)
    res = p.run("seal", SEALED_PATH, "--spec", "PROMPT.md")
    assert "sets no sandbox" in res.stdout
    p.run("unseal", SEALED_PATH)
    p.write({"ralph.yaml": "sandbox: bwrap\n"})
    res = p.run("seal", SEALED_PATH, "--spec", "PROMPT.md")
    assert res.exit_code == 0 and "sandbox" not in res.stdout


@pytest.mark.parametrize(
    ("args", "code", "said"),
    [
        (["../outside.py"], 2, "not a file of the project"),
        (["tests"], 2, "a folder"),
        (["tests/nothing_here.py"], 2, "no such file"),
        (["--spec", "specs/none.spec.md"], 2, "not a spec"),
        ([SEALED_PATH, "--spec", ".ralph/specs/x.spec.md"], 2, "no test_command"),
        ([SEALED_PATH], 2, "--spec is missing"),
    ],
)
def test_each_refusal_is_one_line_and_a_code(
    git_project: Project, args: list[str], code: int, said: str
) -> None:
    p = git_project
    calc_project(p, seal=False)
    (p.root.parent / "outside.py").write_text("x = 1\n")
    p.write({".ralph/specs/x.spec.md": "# a spec\n"})
    if args[0] == "--spec":
        args = [SEALED_PATH, *args]
    elif "--spec" not in args and said != "--spec is missing":
        args = [*args, "--spec", "PROMPT.md"]
    res = p.run("seal", *args)
    assert res.exit_code == code, res
    assert said in res.stderr
    assert res.stderr.splitlines()[0].startswith("error: ")
    assert "Traceback" not in res.stderr
    assert (p.root / SEALED_PATH).exists()  # nothing moved


def test_a_file_already_sealed_and_a_file_in_the_way(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    p.write({SEALED_PATH: "other\n"})
    res = p.run("seal", SEALED_PATH, "--spec", "PROMPT.md")
    assert res.exit_code == 2 and "already sealed" in res.stderr
    res = p.run("unseal", SEALED_PATH)
    assert res.exit_code == 2 and "in the way" in res.stderr
    assert (p.root / SEALED_PATH).read_text() == "other\n"
    res = p.run("unseal", "tests/test_calc.py")
    assert res.exit_code == 2 and "not sealed" in res.stderr


@pytest.mark.parametrize("where", ["index", "commit", "stash", "dangling"])
def test_a_file_git_holds_is_refused_unless_told(git_project: Project, where: str) -> None:
    p = git_project
    calc_project(p, seal=False)
    if where == "index":
        p.git("add", SEALED_PATH)
    elif where == "commit":
        p.commit_all("with the tests")
        p.git("rm", "-q", "--cached", SEALED_PATH)
        p.git("commit", "-qm", "gone")
        (p.root / SEALED_PATH).write_text(SEALED)
    elif where == "stash":
        p.git("stash", "-q", "-u")
        p.git("stash", "apply", "-q")
    else:  # added, then taken back: the blob stays in the object store
        p.git("add", SEALED_PATH)
        p.git("rm", "-q", "--cached", SEALED_PATH)
    res = p.run("seal", SEALED_PATH, "--spec", "PROMPT.md")
    assert res.exit_code == 5, res
    assert "git holds it" in res.stderr and "--even-if-in-git" in res.stderr
    assert (p.root / SEALED_PATH).exists()
    res = p.run("seal", SEALED_PATH, "--spec", "PROMPT.md", "--even-if-in-git")
    assert res.exit_code == 0, res
    assert "git still holds" in res.stdout and "git filter-repo" in res.stdout


@pytest.mark.parametrize("inside", [".ralph/state.json", ".git/config", "."])
def test_ralphs_and_gits_own_files_are_no_file_of_the_project(
    git_project: Project, inside: str
) -> None:
    p = git_project
    calc_project(p, seal=False)
    p.write({".ralph/state.json": "{}"})
    res = p.run("seal", inside, "--spec", "PROMPT.md")
    assert res.exit_code == 2 and "not a file of the project" in res.stderr, res


def test_a_file_named_by_its_absolute_path_is_sealed_as_the_projects(
    git_project: Project,
) -> None:
    p = git_project
    calc_project(p, seal=False)
    res = p.run("seal", str(p.root / SEALED_PATH), "--spec", "PROMPT.md")
    assert res.exit_code == 0, res
    assert f"sealed {SEALED_PATH} for PROMPT.md" in res.stdout


def test_several_files_are_sealed_all_or_none(git_project: Project) -> None:
    p = git_project
    calc_project(p, seal=False)
    res = p.run("seal", SEALED_PATH, "tests/missing.py", "--spec", "PROMPT.md")
    assert res.exit_code == 2 and "no such file" in res.stderr
    assert (p.root / SEALED_PATH).read_text() == SEALED  # the first was not taken either
    assert "no sealed tests" in p.run("seal", "--list").stdout


def test_a_link_is_not_sealed(git_project: Project) -> None:
    p = git_project
    calc_project(p, seal=False)
    (p.root / "tests" / "link.py").symlink_to(p.root / SEALED_PATH)
    res = p.run("seal", "tests/link.py", "--spec", "PROMPT.md")
    assert res.exit_code == 2 and "a link" in res.stderr


def test_the_list_takes_no_file(git_project: Project) -> None:
    p = git_project
    calc_project(p, seal=False)
    res = p.run("seal", "--list", SEALED_PATH)
    assert res.exit_code == 2 and "--list takes no file" in res.stderr


def test_one_file_named_twice_is_refused(git_project: Project) -> None:
    p = git_project
    calc_project(p, seal=False)
    res = p.run("seal", SEALED_PATH, f"./{SEALED_PATH}", "--spec", "PROMPT.md")
    assert res.exit_code == 2 and "already sealed" in res.stderr
    assert (p.root / SEALED_PATH).exists()
