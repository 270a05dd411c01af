"""The checks that decide run in the clean room (store/rooms/room.py, checks/place.py), through the
real CLI: every trick below makes the test pass in the working tree (the control at the end of
each test shows it), and none reaches verified; honest work still does."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ralph.checks.personroom import PERSON_FAILED
from ralph.store.rooms.room import rooms_dir
from tests.conftest import Project

PY = sys.executable
WRONG = "def mean(xs):\n    return sum(xs) * len(xs)\n"
RIGHT = "def mean(xs):\n    return sum(xs) / len(xs)\n"  # as long as WRONG: same size
TEST = (
    "import unittest\nfrom calc import mean\n\n\nclass T(unittest.TestCase):\n"
    "    def test_mean(self):\n        self.assertEqual(mean([1, 2, 3]), 2)\n\n"
    "    def test_other(self):\n        self.assertTrue(True)\n"
)
UNITTEST = f"{PY} -m unittest -v tests.test_calc"
IGNORE = ".ralph/\n__pycache__/\n*.pyc\ndeps/\n.env\n"


def calc_project(p: Project, command: str = UNITTEST, **extra: str) -> None:
    p.write(
        {
            ".gitignore": IGNORE,
            "calc/__init__.py": WRONG,
            "tests/__init__.py": "",
            "tests/test_calc.py": TEST,
            "PROMPT.md": f"---\ntest_command: {command}\n---\n# Fix mean() in calc/\n",
            **extra,
        }
    )
    p.git("init", "-q", "-b", "main")
    p.commit_all()


def in_tree(p: Project, command: str = UNITTEST) -> int:
    """The control: the test command run in the working tree as the agent left it."""
    return subprocess.run(
        command, shell=True, cwd=p.root, capture_output=True, check=False
    ).returncode


def never_verified(p: Project, steps: list[dict[str, Any]], command: str = UNITTEST) -> None:
    res = p.run("run", *p.fake({"*": steps}), "-n", "2")
    assert res.exit_code == 3, res
    assert p.counts() == {"PROMPT.md": 0}
    assert "DONE refused: test_command" in res.stdout
    assert in_tree(p, command) == 0  # the trick works where the agent left it


PYC_TRICK = (
    # the fixed source compiled, then the wrong source put back with the same size and mtime:
    # git sees nothing, the interpreter runs the (ignored) bytecode
    f"{PY} -c \"import os, py_compile; s = os.stat('calc/__init__.py'); "
    f"open('calc/__init__.py', 'w').write({RIGHT!r}); "
    "os.utime('calc/__init__.py', ns=(s.st_atime_ns, s.st_mtime_ns)); "
    "py_compile.compile('calc/__init__.py'); "
    f"open('calc/__init__.py', 'w').write({WRONG!r}); "
    "os.utime('calc/__init__.py', ns=(s.st_atime_ns, s.st_mtime_ns))\""
)


def test_a_fixed_pycache_with_the_source_left_wrong(git_project: Project) -> None:
    calc_project(git_project)
    never_verified(git_project, [{"run": PYC_TRICK, "signal": "DONE"}])


def test_a_sourceless_pyc(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    make = (
        f"{PY} -c \"import py_compile; open('impl_src.py', 'w').write({RIGHT!r}); "
        "py_compile.compile('impl_src.py', cfile='calc/_impl.pyc')\"; rm impl_src.py"
    )
    step = {"run": make, "write": {"calc/__init__.py": "from calc._impl import mean\n"},
            "signal": "DONE"}  # fmt: skip
    never_verified(p, [step])


def test_code_in_an_ignored_deps_folder(git_project: Project) -> None:
    shim = (
        "import os, sys\n"
        "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'deps'))\n"
        "from fixed import mean\n"
    )
    calc_project(git_project)
    step = {"write": {"deps/fixed.py": RIGHT, "calc/__init__.py": shim}, "signal": "DONE"}
    never_verified(git_project, [step])


@pytest.mark.parametrize("hidden", [".git", ".ralph"])
def test_code_under_git_or_ralph_imported_by_the_package(git_project: Project, hidden: str) -> None:
    shim = (
        "import os, sys\n"
        f"sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', {hidden!r}))\n"
        "from fixed import mean\n"
    )
    calc_project(git_project)
    step = {"write": {f"{hidden}/fixed.py": RIGHT, "calc/__init__.py": shim}, "signal": "DONE"}
    never_verified(git_project, [step])


def test_a_nested_repository_the_agent_created(git_project: Project) -> None:
    shim = (
        "import os, sys\n"
        "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'inner'))\n"
        "from fixed import mean\n"
    )
    calc_project(git_project)
    step = {
        "write": {"inner/fixed.py": RIGHT, "calc/__init__.py": shim},
        "run": "git init -q inner",
        "signal": "DONE",
    }
    never_verified(git_project, [step])
    handoff = next((git_project.root / ".ralph" / "handoffs").iterdir()).read_text()
    # the refusal says why a fix that works in the tree fails where the checks ran
    why = "not in the clean room the checks ran in: inner/ (a repository that was not there"
    assert why in handoff


MAKEFILE = "-include .env\nexport\ntest:\n\t{py} -m pytest -q -p no:cacheprovider tests\n"


def test_an_agent_created_env_file_the_makefile_includes(git_project: Project) -> None:
    p = git_project
    calc_project(p, "make test", Makefile=MAKEFILE.format(py=PY))
    step = {"write": {".env": "PYTEST_ADDOPTS=-k 'not mean'\n"}, "signal": "DONE"}
    never_verified(p, [step], "make test")


def test_a_persons_env_file_is_there_for_the_tests(git_project: Project) -> None:
    p = git_project
    test = (
        TEST
        + "\n    def test_env(self):\n        import os\n"
        + ("        self.assertEqual(os.environ['GREETING'], 'hi')\n")
    )
    calc_project(p, "make test", Makefile=MAKEFILE.format(py=PY))
    p.write({"tests/test_calc.py": test})
    p.commit_all("a test that needs the person's .env")
    p.write({".env": "GREETING=hi\n"})  # ignored, the person's, there before the run
    steps = [{"write": {"calc/__init__.py": RIGHT}, "signal": "DONE"}, {"signal": "DONE"}]
    res = p.run("run", *p.fake({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res
    assert p.counts() == {"PROMPT.md": 3}
    assert (rooms_dir(p.root) / "main" / "tree" / ".env").read_text() == "GREETING=hi\n"


def test_an_honest_fix_is_verified_and_bytecode_never_reaches_the_room(
    git_project: Project,
) -> None:
    p = git_project
    calc_project(p)
    steps = [{"write": {"calc/__init__.py": RIGHT}, "signal": "DONE"}, {"signal": "DONE"}]
    res = p.run("run", *p.fake({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res
    assert p.counts() == {"PROMPT.md": 3}
    room = rooms_dir(p.root) / "main" / "tree"
    assert (room / "calc" / "__init__.py").read_text() == RIGHT
    assert not list(room.rglob("*.pyc"))  # PYTHONDONTWRITEBYTECODE: the checks wrote none


def test_added_lines_that_weaken_a_test_fail_as_the_person_left_it(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    weak = TEST.replace("    def test_mean(self):\n", "    def test_mean(self):\n        return\n")
    step = {"write": {"tests/test_calc.py": weak}, "signal": "DONE"}
    res = p.run("run", *p.fake({"*": [step]}), "-n", "2")
    assert res.exit_code == 3, res
    assert p.counts() == {"PROMPT.md": 0}
    assert PERSON_FAILED in res.stdout
    handoff = next((p.root / ".ralph" / "handoffs").iterdir()).read_text()
    assert PERSON_FAILED in handoff and "test_mean" in handoff  # the failing output's tail


def test_one_extra_run_only_when_the_tests_changed(git_project: Project, tmp_path: Path) -> None:
    p = git_project
    runs = tmp_path / "runs"
    calc_project(p, f"'echo run >> {runs}; {UNITTEST}'")
    more = TEST + "\n    def test_one(self):\n        self.assertEqual(mean([1]), 1)\n"
    steps = [
        {"write": {"calc/__init__.py": RIGHT}, "signal": "DONE"},  # tests as the person's
        {"write": {"tests/test_more.py": TEST}, "signal": "DONE"},  # an added test file
        {"write": {"tests/test_calc.py": more}, "signal": "DONE"},  # a test added to theirs
    ]
    res = p.run("run", *p.fake({"*": steps}), "-n", "3")
    assert res.exit_code == 3, res
    assert p.counts() == {"PROMPT.md": 1}  # each DONE changed files: 1/3 again
    # the bar before the first rotation (once); the first DONE once (the tests are the
    # person's); then twice each (room A, and room B: the person's tests without the added
    # file, which could patch the code at import; then the person's own test file)
    assert runs.read_text().count("run") == 6


@pytest.mark.slow
@pytest.mark.parametrize("parallel", [(), ("--parallel", "2")], ids=["one-tree", "lanes"])
def test_an_editable_src_layout_fixed_by_the_agent_is_verified_in_rooms(
    project: Project, parallel: tuple[str, ...]
) -> None:
    from tests.e2e.test_lanes_real import SPECS, editable_project, fixing_agent

    editable_project(project)
    res = project.run("run", "--agent-command", fixing_agent(project), "--headless", *parallel)
    assert res.exit_code == 0, res
    assert project.counts() == dict.fromkeys(SPECS, 3)
    rooms = {p.name for p in rooms_dir(project.root).iterdir() if (p / "tree").is_dir()}
    # the checks ran in rooms: the project's, or each lane's (named after its worktree)
    assert rooms == {"main"} if not parallel else len(rooms - {"main"}) >= 2, rooms
    room = next(rooms_dir(project.root).glob("*/tree"))
    assert (room / ".venv" / "pyvenv.cfg").is_symlink()  # the project's environment, linked


def test_the_rooms_git_status_leaves_a_persons_skip_worktree_file_alone(
    git_project: Project,
) -> None:
    # the room reads the tree with its own `git status`: were it to rewrite the index, the
    # run's snapshot would take the rewrite for someone else's and compare local.cfg (flagged
    # by the person, changed by a tool every rotation) against the index
    p = git_project
    calc_project(p, **{"local.cfg": "mine\n"})
    p.git("update-index", "--skip-worktree", "local.cfg")
    p.write({"calc/__init__.py": RIGHT})
    p.commit_all("fixed")
    steps = [
        {"write": {"local.cfg": f"stamp {n}\n"}, "run": "touch calc/__init__.py", "signal": "DONE"}
        for n in range(6)
    ]
    res = p.run("run", *p.fake({"*": steps}), "-n", "6")
    assert res.exit_code == 0, res
    assert [e["files_changed"] for e in p.rotation_ends()] == [0, 0, 0]


def test_a_linked_worktree_the_agent_created(git_project: Project) -> None:
    # a linked worktree's `.git` is a file, not a folder: it is a repository all the same
    shim = (
        "import os, sys\n"
        "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'inner'))\n"
        "from fixed import mean\n"
    )
    calc_project(git_project)
    write_fixed = f"{PY} -c \"open('inner/fixed.py', 'w').write({RIGHT!r})\""
    step = {
        "write": {"calc/__init__.py": shim},
        "run": f"git worktree add -q --detach inner && {write_fixed}",
        "signal": "DONE",
    }
    never_verified(git_project, [step])
    assert (git_project.root / "inner" / ".git").is_file()
