"""Tests may grow, never shrink, without a person's say: end to end through the real CLI, with
a real agent program (tests/fakes/cheater.py) meeting a failing test.

Each cheat makes the test command pass without fixing the code; the run must never be reported
verified (exit code, state.json, `status --json`, the JUnit report), and the refusal names the
file and what was weakened. Honest work (adding tests, renaming a test file, refactoring the
code) is verified; so is a test change a person accepted or allowed.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Project

CHEATER = Path(__file__).parents[1] / "fakes" / "cheater.py"
SPEC = """\
---
test_command: "{python} -m pytest -q -p no:cacheprovider tests"
---
# calc

`calc.add(a, b)` returns the sum of a and b.
"""
CALC_TEST = """\
from calc import add


def test_add():
    assert add(2, 3) == 5


def test_zero():
    assert add(0, 0) == 0
"""
OTHER_TEST = "def test_truth():\n    assert True\n"

pytestmark = pytest.mark.slow


def calc_project(p: Project, spec: str = SPEC) -> None:
    p.write(
        {
            "specs/calc.spec.md": spec.format(python=sys.executable),
            "calc.py": "def add(a, b):\n    return a - b\n",
            "tests/test_calc.py": CALC_TEST,
            "tests/test_other.py": OTHER_TEST,
        }
    )
    p.commit_all()


def agent(kind: str) -> tuple[str, str]:
    return ("--agent-command", f"{sys.executable} {CHEATER} {kind}")


def assert_never_verified(p: Project, res_code: int) -> None:
    assert res_code != 0
    row = p.state()["specs"][0]
    assert row["done_count"] < 3
    data = json.loads(p.run("status", "--json").stdout)
    assert data["complete"] is False
    assert "DONE" not in {e["signal"] for e in p.rotation_ends()}


@pytest.mark.parametrize(
    ("kind", "what"),
    [
        ("delete", "test `test_add` removed (the file was deleted)"),
        ("expect", "test `test_add` changed: assertion `assert add(2, 3) == 5` removed or changed"),
        ("skip", "adds a skip marker: `@pytest.mark.skip(reason='flaky')`"),
        ("strip", "test `test_add` changed: assertion `assert add(2, 3) == 5` removed or changed"),
    ],
)
def test_a_cheat_on_the_tests_is_never_verified(git_project: Project, kind: str, what: str) -> None:
    p = git_project
    calc_project(p)
    junit = p.root.parent / "junit.xml"
    res = p.run("run", *agent(kind), "-n", "4", "--junit", str(junit))
    # three refused DONEs in a row open the circuit breaker: headless, that aborts
    assert res.exit_code == 5, res
    assert_never_verified(p, res.exit_code)
    reason = f"tests/test_calc.py: {what}"
    assert reason in res.stdout  # the display's note
    refusals = p.worklog("done_gate")
    assert refusals and reason in json.dumps(refusals)
    handoff = next((p.root / ".ralph" / "handoffs").iterdir()).read_text()
    assert reason in handoff and "`ralph accept`" in handoff  # what a person can do
    assert 'failures="1"' in junit.read_text()
    # the cheat passed the test command: only the guard stood in its way
    assert "test_command" not in json.dumps(refusals)


def test_a_restart_does_not_bless_a_weakened_test(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    assert p.run("run", *agent("expect"), "-n", "1").exit_code == 3
    # a new run, an agent that only says DONE: the weakened test is still the agent's
    res = p.run("run", *agent("liar"), "-n", "2")
    assert res.exit_code == 5  # the third refusal in a row (across runs) opens the breaker
    assert_never_verified(p, res.exit_code)
    assert "assert add(2, 3) == 5" in res.stdout


def test_a_run_killed_mid_rotation_does_not_bless_the_agents_edit(git_project: Project) -> None:
    """kill -9 while the agent that weakened a test still runs: at the next start nobody can
    tell whose the edit is, so it is not taken as a person's."""
    p = git_project
    calc_project(p)
    run = subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", *agent("expect_then_hang"), "-n", "1"],
        cwd=p.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    hung = p.root.parent / "hung"
    deadline = time.monotonic() + 60
    while not hung.exists():
        assert time.monotonic() < deadline and run.poll() is None
        time.sleep(0.05)
    run.kill()  # SIGKILL: no clean-up of any kind
    run.wait(timeout=30)
    res = p.run("run", *agent("liar"), "-n", "1")  # takes over and stops the hung agent
    assert res.exit_code == 3, res
    assert "tests changed after a run that was killed" in res.stdout
    assert "assert add(2, 3) == 5" in res.stdout  # still refused
    assert p.state()["specs"][0]["done_count"] == 0


def test_a_person_accepts_the_change(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    assert p.run("run", *agent("expect"), "-n", "1").exit_code == 3
    shown = p.run("accept", "--dry-run")
    assert shown.exit_code == 5
    assert "[tests]" in shown.stdout and "-    assert add(2, 3) == 5" in shown.stdout
    assert "+    assert add(2, 3) == -1" in shown.stdout  # the diff of what is accepted
    assert p.run("accept", "--yes").exit_code == 0
    assert p.run("accept", "--dry-run").exit_code == 0
    assert p.run("run", *agent("liar"), "-n", "6").exit_code == 0  # a person's say


def test_restored_tests_are_trusted_again(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    assert p.run("run", *agent("skip"), "-n", "1").exit_code == 3
    p.git("checkout", "tests/test_calc.py")  # restored (by anyone): nothing is weakened
    assert p.run("run", *agent("fix_and_add"), "-n", "6").exit_code == 0


@pytest.mark.parametrize("kind", ["fix_and_add", "fix_and_rename", "refactor"])
def test_honest_work_is_verified(git_project: Project, kind: str) -> None:
    p = git_project
    calc_project(p)
    res = p.run("run", *agent(kind), "-n", "6")
    assert res.exit_code == 0, res
    assert p.state()["specs"][0]["done_count"] == 3
    assert "weakened" not in res.stdout


def test_a_person_edit_between_runs_is_the_baseline(git_project: Project) -> None:
    """The person changes the spec (add is now the sum plus one) and the test with it, while
    ralph is not running: the agent's work on it is verified."""
    p = git_project
    calc_project(p)
    assert p.run("run", *agent("liar"), "-n", "1").exit_code == 3  # the baseline is recorded
    p.write({"tests/test_calc.py": CALC_TEST.replace("== 5", "== 6").replace("== 0", "== 1")})
    res = p.run("run", *agent("follow_spec"), "-n", "6")
    assert res.exit_code == 0, res
    assert "tests edited while ralph was not running: tests/test_calc.py" in res.stdout


def test_a_spec_that_allows_test_changes(git_project: Project) -> None:
    """A person changed the spec and says its tests may change: the agent updates the
    expected values itself, and it is verified (the guard is off for that spec)."""
    p = git_project
    allowed = SPEC.replace("---\n# calc", "tests: {{may_change: true}}\n---\n# calc")
    calc_project(p, allowed.replace("the sum of a and b", "the sum of a and b, plus one"))
    res = p.run("run", *agent("follow_spec"), "-n", "6")
    assert res.exit_code == 0, res
    # what it changed is the baseline now: another spec's DONE is not refused for it
    assert p.run("accept", "--dry-run").exit_code == 0


def test_the_escalations_accept_takes_the_tests_too(git_project: Project) -> None:
    """Headless, `--on-escalation accept` is the person's answer given beforehand: the
    weakened tests are accepted with the spec, and ralph says so."""
    p = git_project
    calc_project(p)
    res = p.run("run", *agent("expect"), "-n", "8", "--on-escalation", "accept")
    assert "accepted by the user: the tests, weaker than a person last left them" in res.stdout
    assert p.run("accept", "--dry-run").exit_code == 0  # nothing waits any more
