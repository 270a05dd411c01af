"""Test outcomes are evidence, end to end through the real CLI with real agent programs, on a
project whose `mean()` is wrong and whose tests catch it: a failed test in a summary, a run
that only collected, a summary that vanished, and a weakened first DONE never verify; the
bar is measured by ralph before the first rotation; honest work still verifies."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.conftest import Project

pytestmark = pytest.mark.slow

WRONG = "def mean(xs):\n    return sum(xs) / (len(xs) + 1)\n"
FIXED = "def mean(xs):\n    return sum(xs) / len(xs)\n"
# with the wrong mean: 3 passed, 1 failed
MEAN_TEST = """\
from calc import mean


def test_mean():
    assert mean([1, 2, 3]) == 2


def test_callable():
    assert callable(mean)


def test_float():
    assert isinstance(mean([1]), float)


def test_zero():
    assert mean([0, 0]) == 0
"""
PYTEST = "{python} -m pytest -q -p no:cacheprovider tests"


def mean_project(
    p: Project, command: str = PYTEST, extra: str = "", files: dict[str, str] | None = None
) -> None:
    spec = f"---\ntest_command: {json.dumps(command.format(python=sys.executable))}\n{extra}"
    p.write(
        {
            "specs/mean.spec.md": spec + "---\n# mean\n\n`calc.mean(xs)` is the average.\n",
            "calc/__init__.py": WRONG,
            "tests/test_mean.py": MEAN_TEST,
            **(files or {}),
        }
    )
    p.commit_all()


def every(step: dict[str, Any]) -> dict[str, Any]:
    """The same step at every rotation, and DONE."""
    return {"*": [{**step, "signal": "DONE"}]}


def never_verified(p: Project, code: int) -> None:
    assert code != 0
    assert p.state()["specs"][0]["done_count"] < 3
    assert json.loads(p.run("status", "--json").stdout)["complete"] is False
    assert "DONE" not in {e["signal"] for e in p.rotation_ends()}


def test_a_summary_with_a_failure_refuses_a_command_that_exits_0(git_project: Project) -> None:
    p = git_project
    mean_project(
        p,
        "sh run_tests.sh",
        files={"run_tests.sh": f"{sys.executable} -m pytest -q tests\nexit 0\n"},
    )
    res = p.run("run", *p.fake(every({})), "-n", "2")
    never_verified(p, res.exit_code)
    assert "its tests failed (pytest: 3 passed, 1 failed, 0 skipped) though it exited 0" in (
        res.stdout
    )


def test_a_run_that_only_collects_is_refused(git_project: Project) -> None:
    p = git_project
    mean_project(
        p, "sh run_tests.sh", files={"run_tests.sh": f"{sys.executable} -m pytest -q tests\n"}
    )
    collect = f"{sys.executable} -m pytest -q --co -p no:cacheprovider tests\n"
    res = p.run("run", *p.fake(every({"write": {"run_tests.sh": collect}})), "-n", "2")
    never_verified(p, res.exit_code)
    assert "ran no test: it only collected them (pytest --collect-only)" in res.stdout


def test_exit_0_at_import_leaves_no_summary_and_is_refused(git_project: Project) -> None:
    """`os._exit(0)` in the package: pytest exits 0 before it prints anything; the bar's run at
    the start printed a summary, so a run without one is no evidence."""
    p = git_project
    mean_project(p)
    # hidden from a static reading (rules/evidence/exits.py refuses the plain `os._exit(0)`)
    gone = "getattr(__import__('os'), '_exit')(0)\n" + WRONG
    res = p.run("run", *p.fake(every({"write": {"calc/__init__.py": gone}})), "-n", "2")
    never_verified(p, res.exit_code)
    # pytest's own record: its session never ended, whatever it printed (or did not)
    assert "pytest stopped before its end" in res.stdout, res.stdout
    # the bar: 4 tests ran before the first rotation
    assert p.state()["specs"][0]["best_tests"]["passed"] == 4


def test_a_weakened_first_done_cannot_set_the_bar(git_project: Project) -> None:
    """The spec lets the agent change the tests (no guard); it deletes the failing one before
    its first DONE. The bar was measured before: 4 tests ran, 3 pass now."""
    p = git_project
    mean_project(p, extra="tests: {may_change: true}\n")
    weaker = MEAN_TEST.replace("def test_mean():\n    assert mean([1, 2, 3]) == 2\n", "")
    res = p.run("run", *p.fake(every({"write": {"tests/test_mean.py": weaker}})), "-n", "2")
    never_verified(p, res.exit_code)
    assert "measuring the tests' bar: ralph runs the test command once" in res.stdout
    assert "tests' bar of specs/mean.spec.md: 4 tests ran before the first rotation" in res.stdout
    assert "fewer tests passed than in the best run (3 < 4)" in res.stdout
    # a person who means the drop accepts it: the run it fell to is the bar
    assert p.run("accept", "--yes").exit_code == 0
    assert p.state()["specs"][0]["best_tests"]["passed"] == 3


def test_the_bar_is_kept_across_continue_and_not_measured_again(git_project: Project) -> None:
    p = git_project
    mean_project(p, extra="tests: {may_change: true}\n")
    weaker = MEAN_TEST.replace("def test_mean():\n    assert mean([1, 2, 3]) == 2\n", "")
    agent = p.fake(every({"write": {"tests/test_mean.py": weaker}}))
    assert p.run("run", *agent, "-n", "1").exit_code == 3
    res = p.run("run", "--continue", "-n", "1")
    never_verified(p, res.exit_code)
    assert "tests' bar" not in res.stdout  # measured once, by the first run
    assert "fewer tests passed than in the best run (3 < 4)" in res.stdout


def test_honest_work_that_adds_tests_is_verified(git_project: Project) -> None:
    p = git_project
    mean_project(p)
    more = MEAN_TEST + "\n\ndef test_one():\n    assert mean([5]) == 5\n"
    step = {"write": {"calc/__init__.py": FIXED, "tests/test_mean.py": more}}
    res = p.run("run", *p.fake(every(step)), "-n", "6")
    assert res.exit_code == 0, res
    row = p.state()["specs"][0]
    assert row["done_count"] == 3 and row["best_tests"]["passed"] == 5


MEAN_UNITTEST = """\
import unittest

from calc import mean


class TestMean(unittest.TestCase):
    def test_mean(self):
        self.assertEqual(mean([1, 2, 3]), 2)

    def test_zero(self):
        self.assertEqual(mean([0, 0]), 0)
"""
UNITTEST = "{python} -m unittest discover -s tests"
FAKE_RUN = "print('4 passed in 0.01s')\nraise SystemExit(0)\n"
# run at the test run's start, before the tests import `calc`: they get the right mean
PROBE_PATCH = (
    "import calc\n\n\ndef _mean(xs):\n    return sum(xs) / len(xs)\n\n\ncalc.mean = _mean\n"
)


@pytest.mark.parametrize(
    ("command", "files", "reason"),
    [
        (PYTEST, {"pytest.py": FAKE_RUN}, "pytest.py shadows the test runner's `pytest`"),
        (
            UNITTEST,
            {"unittest/__init__.py": "print('Ran 2 tests in 0.001s\\n\\nOK')\n"},
            "unittest/__init__.py shadows the test runner's `unittest`",
        ),
        (
            PYTEST,
            {"tests/calc.py": FIXED},
            "tests/calc.py shadows the project's own `calc` (in the project root): a test run "
            "imports it in tests/ instead",
        ),
        (
            UNITTEST,
            {
                "calc/__init__.py": "import unittest\n\nunittest.TestCase.assertEqual = "
                "lambda *a, **k: None\n" + WRONG
            },
            "calc/__init__.py:3 patches the test harness: it assigns "
            "`unittest.TestCase.assertEqual`",
        ),
        (
            UNITTEST,  # pytest would capture the print; unittest does not
            {
                "calc/__init__.py": "import os\n\nprint('Ran 2 tests in 0.001s\\n\\nOK', "
                "flush=True)\nos._exit(0)\n" + WRONG
            },
            "calc/__init__.py:4 ends the test run: it calls `os._exit` when it is imported",
        ),
        (
            UNITTEST,  # a file named like a test (test*.py) that the package imports
            {
                "testpatch.py": "import unittest\n\nunittest.TestCase.assertEqual = "
                "lambda *a, **k: None\n",
                "calc/__init__.py": "import testpatch  # noqa\n" + WRONG,
            },
            "testpatch.py:3 patches the test harness: it assigns `unittest.TestCase.assertEqual`",
        ),
        (  # subprocess tries `import msvcrt` at pytest's start; the file patches, then "fails"
            PYTEST,
            {"msvcrt.py": PROBE_PATCH + "raise ModuleNotFoundError('msvcrt')\n"},
            "msvcrt.py shadows `msvcrt`, which the standard library tries to import",
        ),
        (  # copy tries Jython's `org.python.core`: a namespace package answers it
            PYTEST,
            {"org/python/core.py": PROBE_PATCH + "PyStringMap = None\n"},
            "org/python/core.py shadows `org`, which the standard library tries to import",
        ),
    ],
    ids=[
        "pytest.py",
        "unittest-package",
        "tests-calc-double",
        "assertEqual-no-op",
        "fake-summary",
        "patch-in-a-test-named-file",
        "msvcrt-probe",
        "jython-probe",
    ],
)
def test_what_the_test_run_loads_cannot_be_bent(
    git_project: Project, command: str, files: dict[str, str], reason: str
) -> None:
    p = git_project
    test = {"tests/test_mean.py": MEAN_UNITTEST} if command == UNITTEST else {}
    mean_project(p, command, files=test)
    res = p.run("run", *p.fake(every({"write": files})), "-n", "2")
    never_verified(p, res.exit_code)
    assert reason in res.stdout
    assert "what the test run loads was changed (remove or rename what the agent added" in (
        res.stdout
    )


# A distribution in the project's environment that declares a pytest plugin: pytest imports
# the plugin's module by name at start, so a file of that name at the root runs instead.
SITE = f"python{sys.version_info.major}.{sys.version_info.minor}/site-packages"
PLUGIN_DECLARED = {
    f".venv/lib/{SITE}/faux-1.0.dist-info/METADATA": "Name: faux\nVersion: 1.0\n",
    f".venv/lib/{SITE}/faux-1.0.dist-info/entry_points.txt": (
        "[console_scripts]\nfaux = faux_cli:main\n\n[pytest11]\nfaux = _faux_pytestplugin\n"
    ),
    f".venv/lib/{SITE}/_faux_pytestplugin.py": "",
    ".gitignore": ".venv/\n",
}


def test_a_module_named_like_an_installed_pytest_plugin_is_refused(git_project: Project) -> None:
    p = git_project
    mean_project(p, files=PLUGIN_DECLARED)
    res = p.run("run", *p.fake(every({"write": {"_faux_pytestplugin.py": PROBE_PATCH}})), "-n", "2")
    never_verified(p, res.exit_code)
    assert "_faux_pytestplugin.py shadows the pytest plugin `_faux_pytestplugin`" in res.stdout


def test_a_plugin_of_the_interpreter_behind_a_shim_counts_too(
    git_project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`python3` on PATH is a shim (pyenv's): its folder holds no site-packages, the
    interpreter it starts does, and declares the plugin there."""
    p = git_project
    system = tmp_path / "system"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(system)], check=True)
    site = next(system.glob("lib/python3*/site-packages"))
    for rel, text in PLUGIN_DECLARED.items():
        if rel.startswith(".venv/"):
            target = site / rel.split("/site-packages/", 1)[1]
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    shims = tmp_path / "shims"
    shims.mkdir()
    shim = shims / "python3"
    shim.write_text(f'#!/bin/sh\nexec "{system / "bin" / "python"}" "$@"\n')
    shim.chmod(0o755)
    monkeypatch.setenv("PATH", f"{shims}{os.pathsep}{os.environ['PATH']}")
    mean_project(p)
    res = p.run("run", *p.fake(every({"write": {"_faux_pytestplugin.py": PROBE_PATCH}})), "-n", "2")
    never_verified(p, res.exit_code)
    assert "_faux_pytestplugin.py shadows the pytest plugin `_faux_pytestplugin`" in res.stdout


def test_a_module_named_like_no_plugin_beside_installed_plugins_is_honest(
    git_project: Project,
) -> None:
    """The control: the same environment, an honest fix and a helper module of the agent's
    (named like the plugin's console script, which pytest never imports) reach verified."""
    p = git_project
    mean_project(p, files=PLUGIN_DECLARED)
    step = {"write": {"calc/__init__.py": FIXED, "faux_cli.py": "ONE = 1\n"}}
    res = p.run("run", *p.fake(every(step)), "-n", "6")
    assert res.exit_code == 0, res


def test_a_persons_own_module_present_at_the_start_is_not_refused(git_project: Project) -> None:
    """A person's `sitecustomize.py` and a helper module the agent adds are no reason."""
    p = git_project
    mean_project(p, files={"sitecustomize.py": "# the person's own\n"})
    step = {"write": {"calc/__init__.py": FIXED, "tests/helpers.py": "ONE = 1\n"}}
    res = p.run("run", *p.fake(every(step)), "-n", "6")
    assert res.exit_code == 0, res


@pytest.mark.parametrize("how", ["ctrl-c", "cancel --now"])
def test_ctrl_c_while_the_bar_is_measured_stops_the_run_and_its_tests(
    git_project: Project, how: str
) -> None:
    p = git_project
    marker, pidfile = p.root.parent / "started", p.root.parent / "pid"
    mean_project(p, f"echo $$ > {pidfile}; touch {marker}; sleep 60")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", "--agent-command", p.script(every({}))],
        cwd=p.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.05)
    shell = psutil.Process(int(pidfile.read_text()))
    if how == "ctrl-c":
        proc.send_signal(signal.SIGINT)
    else:
        assert p.run_subprocess("cancel", "--now", "--wait").exit_code == 0
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)
    assert p.calls() == []  # no rotation ran
    deadline = time.monotonic() + 10
    while _alive(shell):
        assert time.monotonic() < deadline, "the measured test command survived Ctrl-C"
        time.sleep(0.05)


def _alive(process: psutil.Process) -> bool:
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def test_a_lane_that_patches_the_harness_is_refused(git_project: Project) -> None:
    """Lanes too: what a lane's agent adds since the lane opened is judged like the main
    tree's (the lane's gate knows what changed from its start)."""
    p = git_project
    patch = "import unittest\n\nunittest.TestCase.assertEqual = lambda *a, **k: None\n"
    mean_project(
        p,
        UNITTEST,
        files={
            "tests/test_mean.py": MEAN_UNITTEST,
            "specs/other.spec.md": "# other\n\nWrite other.txt.\n",
        },
    )
    steps = {
        "specs/mean.spec.md": [{"write": {"calc/__init__.py": patch + WRONG}, "signal": "DONE"}],
        "specs/other.spec.md": [{"write": {"other.txt": "x\n"}, "signal": "DONE"}],
    }
    res = p.run("run", *p.fake(steps), "--parallel", "2", "-n", "4", "--headless")
    assert res.exit_code != 0, res
    row = next(s for s in p.state()["specs"] if s["path"] == "specs/mean.spec.md")
    assert row["done_count"] < 3
    assert "patches the test harness" in res.stdout
