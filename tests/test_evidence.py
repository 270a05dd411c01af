"""Test runs are evidence, not exit codes, end to end: a test command that runs no test, or
fewer passing tests than the spec's best run, never verifies; the counts show in state.json,
`status --json` and the JUnit report."""

from __future__ import annotations

import json
import sys

import pytest

from tests.conftest import Project
from tests.test_testguard import CALC_TEST, agent, assert_never_verified, calc_project

pytestmark = pytest.mark.slow


def test_a_test_command_that_runs_no_test_fails(git_project: Project) -> None:
    """unittest finds no TestCase among pytest-style tests: "Ran 0 tests ... OK", exit 0."""
    p = git_project
    spec = "---\ntest_command: {python} -m unittest discover -s tests\n---\n# calc\n"
    calc_project(p, spec)
    res = p.run("run", *agent("fix_and_add"), "-n", "4")
    assert res.exit_code == 5, res  # refused three times: the breaker opens
    assert_never_verified(p, res.exit_code)
    assert "test_command: ran no test (unittest: 0 passed, 0 failed, 0 skipped)" in res.stdout


def test_fewer_passing_tests_than_the_best_run_is_refused(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    junit = p.root.parent / "junit.xml"
    res = p.run("run", *agent("grow_then_drop"), "-n", "4", "--junit", str(junit))
    assert res.exit_code == 5, res
    assert p.state()["specs"][0]["done_count"] < 3
    assert json.loads(p.run("status", "--json").stdout)["complete"] is False
    assert "fewer tests passed than in the best run (3 < 4)" in res.stdout
    assert [e["signal"] for e in p.rotation_ends()][:2] == ["DONE", "REFUSED"]
    row = p.state()["specs"][0]
    assert row["best_tests"]["passed"] == 4 and row["tests"]["passed"] == 3
    status = json.loads(p.run("status", "--json").stdout)["specs"][0]
    assert status["tests"] == {"passed": 3, "failed": 0, "skipped": 0, "runners": ["pytest"]}
    assert '<property name="tests_passed" value="3" />' in junit.read_text()
    # a person accepts the drop: the spec can be verified with the tests it has now
    shown = p.run("accept", "--dry-run")
    assert shown.exit_code == 5 and "[test counts] specs/calc.spec.md: fewer tests" in shown.stdout
    assert p.run("accept", "--yes").exit_code == 0
    assert p.run("run", *agent("liar"), "-n", "6").exit_code == 0
    assert p.state()["specs"][0]["best_tests"]["passed"] == 3


def test_honest_counts_are_recorded(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    res = p.run("run", *agent("fix_and_add"), "-n", "6")
    assert res.exit_code == 0, res
    tests = p.state()["specs"][0]["tests"]
    assert (tests["passed"], tests["failed"], tests["skipped"]) == (5, 0, 0)
    assert "specs/calc.spec.md 3/3 DONE 5 passed" in res.stdout  # the final matrix


def test_counts_from_a_junit_report_the_check_names(git_project: Project) -> None:
    p = git_project
    spec = (
        "---\ntest_command: {python} -m pytest -q -p no:cacheprovider --junitxml=out/junit.xml"
        " tests\ntest_report: out/junit.xml\n---\n# calc\n"
    )
    calc_project(p, spec)
    p.write({".gitignore": "out/\n", "tests/test_calc.py": CALC_TEST})
    p.commit_all("ignore reports")
    res = p.run("run", *agent("fix_and_rename"), "-n", "6")
    assert res.exit_code == 0, res
    assert p.state()["specs"][0]["tests"]["runners"] == ["junit"]
    assert sys.executable  # the command ran the real pytest
