"""The revert check on a `python -m unittest -v` project, through the real CLI: unittest writes
no JUnit report, so the per-case lines it prints are read (rules/evidence/caselines.py). A test that
bites reaches verified; a hollow one is refused; a test that prints lines like the runner's
own makes the output no result, and the refusal says so."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import Project
from tests.e2e.test_revert_check import RIGHT, calc_project, refused, revert_results, run

pytestmark = pytest.mark.slow
UNITTEST = f"{sys.executable} -m unittest discover -v -s tests -t ."
HEAD = "import unittest\n\nfrom calc import mean\n\n\nclass T(unittest.TestCase):\n"
OLD = HEAD + "    def test_exists(self):\n        self.assertTrue(callable(mean))\n"
BITES = OLD + "\n    def test_mean_of_two(self):\n        self.assertEqual(mean([2, 4]), 3)\n"
HOLLOW = OLD + "\n    def test_mean_runs(self):\n        mean([2, 4])\n"
FAKE = (
    "\n    def test_mean_runs(self):\n        import sys\n\n"
    "        sys.stderr.write('\\ntest_mean_runs (tests.test_calc.T.test_mean_runs) ... FAIL\\n')\n"
    "        mean([2, 4])\n"
)


def test_a_unittest_project_whose_new_test_bites_is_verified(git_project: Project) -> None:
    p = git_project
    calc_project(p, command=UNITTEST, **{"tests/test_calc.py": OLD})
    res = run(p, {"calc/__init__.py": RIGHT, "tests/test_calc.py": BITES}, 6)
    assert res.exit_code == 0, res
    results = [r for r in revert_results(p) if not r["skipped"]]
    assert len(results) == 2 and all(r["passed"] for r in results), results
    assert "1 of 1 added test cases fail" in results[-1]["summary"]


def test_a_hollow_unittest_test_is_refused(git_project: Project) -> None:
    p = git_project
    calc_project(p, command=UNITTEST, **{"tests/test_calc.py": OLD})
    (ran,) = refused(
        p, {"calc/__init__.py": RIGHT, "tests/test_calc.py": HOLLOW}, "none of the 1 added"
    )
    assert "tests/test_calc.py::T.test_mean_runs: passed" in ran["summary"]


def test_a_test_printing_a_fake_outcome_line_is_no_result(git_project: Project) -> None:
    p = git_project
    calc_project(p, command=UNITTEST, **{"tests/test_calc.py": OLD})
    (ran,) = refused(
        p, {"calc/__init__.py": RIGHT, "tests/test_calc.py": OLD + FAKE}, "no per-case results"
    )
    assert "a test printed lines like the runner's own" in ran["summary"], ran


# A new test that "fails on the old code" by its file's modification time: the old code was
# written when the check ran, later than the agent wrote its tests. The old code now keeps the
# tree's times, so the test passes on both and is seen for what it is.
BY_MTIME = OLD + (
    "\n    def test_code_is_not_newer_than_its_test(self):\n        import os\n\n"
    "        code = os.stat('calc/__init__.py').st_mtime\n"
    "        self.assertLessEqual(code, os.stat('tests/test_calc.py').st_mtime + 0.5)\n"
)


def test_a_test_that_tells_the_old_code_by_its_mtime_is_refused(git_project: Project) -> None:
    p = git_project
    calc_project(p, command=UNITTEST, **{"tests/test_calc.py": OLD})
    refused(p, {"calc/__init__.py": RIGHT, "tests/test_calc.py": BY_MTIME}, "none of the 1 added")
