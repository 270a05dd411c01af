"""Which files are tests follows each runner's discovery: unittest's `test*.py`, the person's
pytest `python_files` / `testpaths` and jest's `testMatch`; no folder is exempt by its name,
what the person's ignore rules leave out is. Pure rules, then runs through the real CLI."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import Project
from tests.e2e.test_evidence_runs import (
    FIXED,
    MEAN_TEST,
    MEAN_UNITTEST,
    UNITTEST,
    every,
    mean_project,
    never_verified,
)

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
