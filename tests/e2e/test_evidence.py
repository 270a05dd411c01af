"""Test runs are evidence, not exit codes, end to end: a test command that runs no test, or
fewer passing tests than the spec's best run, never verifies; the counts show in state.json,
`status --json` and the JUnit report."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from ralph.errors import StateError
from ralph.rules.counts.state import SpecState, State
from ralph.rules.evidence.testcounts import TestCounts as Counts
from ralph.store.records.state import load_state, save_state, state_from_json
from tests.conftest import Project
from tests.e2e.test_testguard import CALC_TEST, agent, assert_never_verified, calc_project

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


def test_test_counts_round_trip_in_the_state_file(tmp_path: Path) -> None:
    row = SpecState(
        "PROMPT.md", tests=Counts(3, 1, 2, ("pytest",)), best_tests=Counts(4, 0, 0, ("pytest",))
    )
    path = tmp_path / "state.json"
    save_state(path, State(specs=(row,)))
    assert load_state(path).specs[0] == row
    saved = json.loads(path.read_text())["specs"][0]
    assert saved["tests"] == {"passed": 3, "failed": 1, "skipped": 2, "runners": ["pytest"]}
    saved["tests"]["passed"] = -1
    with pytest.raises(StateError, match=r"specs\[0\]\.tests\.passed"):
        state_from_json({"schema_version": 1, "specs": [saved]})


def test_a_specs_own_test_globs_are_guarded(git_project: Project) -> None:
    """Tests outside the default names, named by the spec's front matter: still guarded."""
    p = git_project
    spec = "---\ntest_command: {python} -m pytest -q -p no:cacheprovider checks/verify_calc.py\n"
    spec += 'tests: ["checks/*.py"]\n---\n# calc\n'
    calc_project(p, spec)
    p.write({"checks/verify_calc.py": CALC_TEST})
    p.commit_all("checks")
    weaker = CALC_TEST.replace("== 5", "== -1")
    script = p.fake({"*": [{"write": {"checks/verify_calc.py": weaker}, "signal": "DONE"}]})
    res = p.run("run", *script, "-n", "2")
    assert res.exit_code == 3, res
    assert "checks/verify_calc.py: test `test_add` changed" in res.stdout
    assert p.state()["specs"][0]["done_count"] == 0
