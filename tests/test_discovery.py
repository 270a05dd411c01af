"""Which files are tests follows each runner's discovery: unittest's `test*.py`, the person's
pytest `python_files` / `testpaths` and jest's `testMatch`; no folder is exempt by its name,
what the person's ignore rules leave out is. Pure rules, then runs through the real CLI."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ralph.rules.testfiles import DEFAULT_GLOBS, is_test, runner_globs
from ralph.store.testbaseline import person_ignored, scan
from tests.conftest import Project
from tests.test_evidence_runs import (
    FIXED,
    MEAN_TEST,
    MEAN_UNITTEST,
    UNITTEST,
    every,
    mean_project,
    never_verified,
)


def test_unittest_discovers_test_star_py() -> None:
    assert is_test("tests/testmean.py", DEFAULT_GLOBS)
    assert is_test("tests/test_mean.py", DEFAULT_GLOBS)
    assert is_test("dist/tests/test_mean.py", DEFAULT_GLOBS)
    assert not is_test("calc/mean.py", DEFAULT_GLOBS)


def test_the_runners_settings_widen_the_globs() -> None:
    found = runner_globs(
        {
            "pytest.ini": "[pytest]\npython_files = check_*.py\n    verify*.py\n",
            "tox.ini": "[tox]\nenvlist = py311\n[pytest]\ntestpaths = suite/main.py other\n",
            "setup.cfg": "[tool:pytest]\npython_files = spec_*.py\n",
            "package.json": json.dumps(
                {"jest": {"testMatch": ["<rootDir>/checks/**/*.js", "**/?(*.)+(spec).[jt]s"]}}
            ),
        },
        {"tool": {"pytest": {"ini_options": {"python_files": ["it_*.py"]}}}},
    )
    assert found == (
        "check_*.py",
        "verify*.py",
        "suite/main.py",
        "spec_*.py",
        "checks/**/*.js",
        "it_*.py",
    )
    assert runner_globs({"pytest.ini": "not [ini", "package.json": "{", "tox.ini": ""}) == ()


def test_no_folder_is_exempt_by_its_name_but_ignored_ones_and_environments_are(
    git_project: Project,
) -> None:
    p = git_project
    test = "def test_x():\n    assert True\n"
    p.write(
        {
            ".gitignore": "out/\n",
            "dist/test_a.py": test,
            "build/test_b.py": test,
            "vendor/lib/test_c.py": test,
            "out/test_d.py": test,  # ignored by the person's rules
            "env/pyvenv.cfg": "home = /usr\n",  # a virtualenv
            "env/lib/test_e.py": test,
            "node_modules/x/test_f.py": test,
        }
    )
    found = set(scan(p.root, DEFAULT_GLOBS, person_ignored(p.root)))
    assert found == {"dist/test_a.py", "build/test_b.py", "vendor/lib/test_c.py"}


RUNS = pytest.mark.slow
WEAKER_UNITTEST = MEAN_UNITTEST.replace("mean([1, 2, 3]), 2)", "mean([1, 2, 3]), 1.5)")
WEAKER_PYTEST = MEAN_TEST.replace("== 2\n", "== 1.5\n")


@RUNS
def test_a_weakened_testmean_py_is_refused(git_project: Project) -> None:
    p = git_project
    mean_project(p, UNITTEST, files={"tests/test_mean.py": "", "tests/testmean.py": MEAN_UNITTEST})
    (p.root / "tests/test_mean.py").unlink()
    p.commit_all("unittest's own name")
    res = p.run("run", *p.fake(every({"write": {"tests/testmean.py": WEAKER_UNITTEST}})), "-n", "2")
    never_verified(p, res.exit_code)
    assert "tests/testmean.py: test `TestMean.test_mean` changed" in res.stdout


def dist_project(p: Project) -> None:
    command = "{python} -m pytest -q -p no:cacheprovider dist/tests"
    mean_project(p, command, files={"dist/tests/test_mean.py": MEAN_TEST})
    (p.root / "tests/test_mean.py").unlink()
    p.commit_all("the tests live in dist/")


@RUNS
def test_weakened_tests_in_a_dist_folder_are_refused(git_project: Project) -> None:
    p = git_project
    dist_project(p)
    res = p.run(
        "run", *p.fake(every({"write": {"dist/tests/test_mean.py": WEAKER_PYTEST}})), "-n", "2"
    )
    never_verified(p, res.exit_code)
    assert "dist/tests/test_mean.py: test `test_mean` changed" in res.stdout


@RUNS
def test_honest_work_with_tests_in_a_dist_folder_is_verified(git_project: Project) -> None:
    p = git_project
    dist_project(p)
    res = p.run("run", *p.fake(every({"write": {"calc/__init__.py": FIXED}})), "-n", "6")
    assert res.exit_code == 0, res


def check_project(p: Project) -> None:
    command = "{python} -m pytest -q -p no:cacheprovider tests"
    files = {
        "pytest.ini": "[pytest]\npython_files = check_*.py\n",
        "tests/check_mean.py": MEAN_TEST,
    }
    mean_project(p, command, files=files)
    (p.root / "tests/test_mean.py").unlink()
    p.commit_all("the person's own name for tests")


@RUNS
def test_python_files_of_the_person_are_tests(git_project: Project) -> None:
    p = git_project
    check_project(p)
    weak = p.run(
        "run", *p.fake(every({"write": {"tests/check_mean.py": WEAKER_PYTEST}})), "-n", "2"
    )
    never_verified(p, weak.exit_code)
    assert "tests/check_mean.py: test `test_mean` changed" in weak.stdout


@RUNS
def test_honest_work_with_the_persons_python_files_is_verified(git_project: Project) -> None:
    p = git_project
    check_project(p)
    more = MEAN_TEST + "\n\ndef test_one():\n    assert mean([5]) == 5\n"
    step = {"write": {"calc/__init__.py": FIXED, "tests/check_mean.py": more}}
    res = p.run("run", *p.fake(every(step)), "-n", "6")
    assert res.exit_code == 0, res
    assert p.state()["specs"][0]["best_tests"]["passed"] == 5
    assert sys.executable and Path(p.root / "pytest.ini").exists()
