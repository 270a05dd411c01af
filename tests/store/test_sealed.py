"""store/sealed.py: sealed tests."""

from __future__ import annotations

import json
import sys

import pytest

from ralph.store.sealed import sealed_dir
from tests.conftest import Project
from tests.test_schemas import problems

PY = sys.executable


WRONG = "def mean(xs):\n    return 0\n"


VISIBLE = (
    "import unittest\nfrom calc import mean\n\n\nclass T(unittest.TestCase):\n"
    "    def test_mean(self):\n        self.assertEqual(mean([1, 2, 3]), 2)\n"
)


SECRET_WORD = "zebracrossing"  # in the sealed file only: grepped for everywhere


SEALED = (
    f"import unittest\nfrom calc import mean\n\n\nclass {SECRET_WORD.title()}(unittest.TestCase):\n"
    f"    def test_{SECRET_WORD}_pair(self):\n        self.assertEqual(mean([2, 4]), 3)\n\n"
    f"    def test_{SECRET_WORD}_one(self):\n        self.assertEqual(mean([10]), 10)\n\n"
    f"    def test_{SECRET_WORD}_same(self):\n        self.assertEqual(mean([2, 2]), 2)\n"
)


SEALED_PATH = "tests/test_acceptance_hidden.py"


COMMAND = f"{PY} -m unittest discover -v -s tests -t ."


IGNORE = ".ralph/\n__pycache__/\n*.pyc\n"


def calc_project(p: Project, *, seal: bool = True, command: str = COMMAND) -> None:
    p.write(
        {
            ".gitignore": IGNORE,
            "calc/__init__.py": WRONG,
            "tests/__init__.py": "",
            "tests/test_calc.py": VISIBLE,
            "PROMPT.md": f"---\ntest_command: {command}\n---\n# Make mean() in calc/ right\n",
        }
    )
    p.git("init", "-q", "-b", "main")
    p.commit_all()
    p.write({SEALED_PATH: SEALED})
    if seal:
        res = p.run("seal", SEALED_PATH, "--spec", "PROMPT.md")
        assert res.exit_code == 0, res
        assert not (p.root / SEALED_PATH).exists()


def test_seal_list_unseal_round_trip(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    res = p.run("seal", "--list")
    assert res.exit_code == 0
    assert SEALED_PATH in res.stdout and "PROMPT.md" in res.stdout
    data = json.loads(p.run("seal", "--list", "--json").stdout)
    assert data["schema_version"] == 1
    assert problems("seal", data) == []  # its schema (`ralph schema seal`), filled
    (entry,) = data["sealed"]
    assert entry["path"] == SEALED_PATH and entry["specs"] == ["PROMPT.md"]
    assert entry["size"] == len(SEALED.encode())
    folder = sealed_dir(p.root)
    assert folder.stat().st_mode & 0o777 == 0o700
    (p.root / "PROMPT.md").rename(p.root / "TASK.md")  # its spec gone: the list says so
    assert "PROMPT.md (no such spec: never run)" in p.run("seal", "--list").stdout
    res = p.run("unseal", SEALED_PATH)
    assert res.exit_code == 0, res
    assert (p.root / SEALED_PATH).read_text() == SEALED
    assert "no sealed tests" in p.run("seal", "--list").stdout
    assert not any((folder / "blobs").iterdir())


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
