"""store/person/sealed.py: sealed tests kept in ralph's store, and the sealed project the tests of
`ralph seal` (tests/commands/test_seal.py) and tests/e2e/test_sealed*.py start from."""

from __future__ import annotations

import json
import sys

from ralph.store.person.sealed import sealed_dir
from tests.conftest import Project
from tests.schemas.test_catalog import problems

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
