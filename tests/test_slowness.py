"""tests/slowness.py: a test not marked slow that starts a process but git, or drives
`ralph run`, fails and names what it did; marked slow, it may; a pure test passes."""

from __future__ import annotations

import pytest

from tests.slowness import _program

pytest_plugins = ("pytester",)

INNER = """
import subprocess
import sys

import pytest

from tests.conftest import Project


def test_pure():
    assert sum([1, 2]) == 3


def test_git_is_quick_enough():
    subprocess.run(["git", "--version"], check=True, capture_output=True)


def test_starts_python():
    subprocess.run([sys.executable, "-c", ""], check=True)


def test_drives_a_run(tmp_path, monkeypatch):
    Project(tmp_path, monkeypatch).run("run", "--agent", "demo")


def test_a_refused_command_line_runs_nothing(tmp_path, monkeypatch):
    assert Project(tmp_path, monkeypatch).run("run", "--max-iterations", "x").exit_code == 2
    assert Project(tmp_path, monkeypatch).run("run", "--help").exit_code == 0


@pytest.mark.slow
def test_marked_slow_starts_python():
    subprocess.run([sys.executable, "-c", ""], check=True)
"""


@pytest.mark.slow  # the tests it runs start processes, in this process
def test_what_a_test_does_decides_whether_it_is_slow(pytester: pytest.Pytester) -> None:
    pytester.makeini("[pytest]\nmarkers =\n    slow: slow\n")
    pytester.makeconftest("from tests.slowness import slow_is_what_it_does  # noqa: F401\n")
    pytester.makepyfile(test_inner=INNER)
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=6, errors=2)
    result.stdout.fnmatch_lines(
        [
            "*test_starts_python starts `python*`: a test that does this is slow; move it to "
            "tests/e2e/*",
            "*test_drives_a_run drives `ralph run` end to end: *",
        ]
    )


def test_the_program_is_named_on_every_platform() -> None:
    assert _program("/usr/bin/git", ["git", "status"]) == "git"
    assert _program(b"/usr/bin/python3", [b"python3"]) == "python3"
    # Windows: no executable, one command line, perhaps quoted
    assert _program(None, '"C:\\Program Files\\Git\\cmd\\git.exe" status') == "git.exe"
    assert _program(None, "C:\\Python\\python.exe -m ralph") == "python.exe"
    assert _program(None, ["git", "init"]) == "git"
