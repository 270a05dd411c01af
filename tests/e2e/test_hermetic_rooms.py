"""A check reads the compared tree, the environment ralph gives it, and the system: nothing the
agent could plant around the room or behind a link (rules/environment/roompin.py,
store/rooms/room.py), through
the real CLI. Each trick is shown to work where a room would otherwise find it (the control),
and none reaches verified; honest work still does."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Project

pytestmark = pytest.mark.slow


PY = sys.executable


WRONG = "def mean(xs):\n    return sum(xs) * len(xs)\n"


RIGHT = "def mean(xs):\n    return sum(xs) / len(xs)\n"


TEST = "from calc import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n"


PYTEST = f"{PY} -m pytest -q -p no:cacheprovider tests"


# a hook that reports every test passed: what a conftest above the room would load
PASS_ALL = (
    "import pytest\n\n\n@pytest.hookimpl(hookwrapper=True)\n"
    "def pytest_runtest_makereport(item, call):\n"
    "    outcome = yield\n    outcome.get_result().outcome = 'passed'\n"
)


def calc_project(p: Project, command: str = PYTEST, **extra: str) -> None:
    p.write(
        {
            ".gitignore": ".ralph/\n__pycache__/\n.venv/\nvendored/\n",
            "calc/__init__.py": WRONG,
            "tests/test_calc.py": TEST,
            "PROMPT.md": f"---\ntest_command: {command}\n---\n# Fix mean() in calc/\n",
            **extra,
        }
    )
    p.git("init", "-q", "-b", "main")
    p.commit_all()


def passes_at(folder: Path, command: str = PYTEST) -> bool:
    run = subprocess.run(command, shell=True, cwd=folder, capture_output=True, check=False)
    return run.returncode == 0


def test_configuration_above_the_room_is_never_found(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    home = Path(os.environ["HOME"])  # the rooms live below it, in ralph's state folder
    plant = (
        "import os\nhome = os.environ['HOME']\n"
        "open(os.path.join(home, 'pytest.ini'), 'w').write('[pytest]\\n')\n"
        f"open(os.path.join(home, 'conftest.py'), 'w').write({PASS_ALL!r})\n"
    )
    code = base64.b64encode(plant.encode()).decode()
    step = {"run": f"{PY} -c \"import base64; exec(base64.b64decode('{code}'))\"", "signal": "DONE"}
    res = p.run("run", *p.fake({"*": [step]}), "-n", "2")
    assert res.exit_code == 3, res
    assert p.counts() == {"PROMPT.md": 0}
    assert "DONE refused: test_command" in res.stdout
    # the control: a copy of the tree in a folder below the planted files passes
    (home / "copy").mkdir()
    shutil.copytree(p.root, home / "copy" / "tree", ignore=shutil.ignore_patterns(".git"))
    assert (home / "pytest.ini").is_file() and passes_at(home / "copy" / "tree")


def test_the_room_own_configuration_is_still_read(git_project: Project) -> None:
    """Honest: the person's pytest.ini (pythonpath) works in the room, and so does a fix."""
    p = git_project
    calc_project(p, **{"pytest.ini": "[pytest]\npythonpath = lib\n", "lib/.keep": ""})
    res = p.run("run", *p.fake({"*": [{"write": {"calc/__init__.py": RIGHT}, "signal": "DONE"}]}))
    assert res.exit_code == 0, res
    assert p.counts() == {"PROMPT.md": 3}


def test_a_link_into_the_project_environment_reaches_nothing(git_project: Project) -> None:
    """A compared file that links into the project's virtualenv (outside its site-packages)
    would let a later edit there reach the checks: the link is left out of the room."""
    p = git_project
    calc_project(p, **{".venv/pyvenv.cfg": "home = /usr/bin\n"})
    step = {
        "write": {".venv/vendor/impl.py": RIGHT},
        "run": "rm calc/__init__.py && ln -s ../.venv/vendor/impl.py calc/__init__.py",
        "signal": "DONE",
    }
    res = p.run("run", *p.fake({"*": [step]}), "-n", "2")
    assert res.exit_code == 3, res
    assert p.counts() == {"PROMPT.md": 0}
    assert "calc/__init__.py (a link whose target leaves the room)" in res.stdout
    assert passes_at(p.root)  # the control: in the tree the link works


def checks_of(p: Project) -> list[str]:
    return [str(r["name"]) for r in p.worklog("check") if not r.get("cached")]


def test_the_person_tests_second_run_is_recorded_in_the_worklog(git_project: Project) -> None:
    """The agent changed the tests: they run again as the person left them, and that run is a
    record of the worklog like the first."""
    p = git_project
    calc_project(p)
    more = TEST + "\n\ndef test_more():\n    assert mean([2]) == 2\n"
    step = {"write": {"calc/__init__.py": RIGHT, "tests/test_calc.py": more}, "signal": "DONE"}
    res = p.run("run", *p.fake({"*": [step]}), "-n", "1")
    assert res.exit_code == 3, res
    assert checks_of(p) == ["test_command", "test_command (person's tests)"]


def test_the_project_venv_python_in_the_command_runs_the_tests_once(git_project: Project) -> None:
    """`.venv/bin/python -m pytest` is the environment's interpreter, not a runner script the
    person never had: a change of code only runs the tests once."""
    p = git_project
    command = ".venv/bin/python -m pytest -q -p no:cacheprovider tests"
    calc_project(p, command)
    subprocess.run([PY, "-m", "venv", "--system-site-packages", str(p.root / ".venv")], check=True)
    site = next((p.root / ".venv" / "lib").glob("python3*/site-packages"))
    (site / "ours.pth").write_text(str(Path(pytest.__file__).parents[1]) + "\n")  # pytest
    res = p.run("run", *p.fake({"*": [{"write": {"calc/__init__.py": RIGHT}, "signal": "DONE"}]}))
    assert res.exit_code == 0, res
    assert set(checks_of(p)) == {"test_command"}
