"""Settings that decide are a person's (store/person/settings.py): an agent's edit of ralph.yaml,
or of
the options `--continue` reuses, takes no effect until a person accepts it with `ralph accept`.

A real agent program (tests/fakes/intruder.py) rewrites ralph.yaml during a run; the next run
uses the settings the person last accepted and says so in one line, and the verdict does not
move (exit code, `status --json`). `ralph accept` shows the diff (control characters made
visible) and applies it. A person's edit between runs is used at once.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import Project
from tests.e2e.test_private_store import INTRUDER, assert_never_verified, status
from tests.e2e.test_sandbox_run import disk_tmp, need  # noqa: F401  (a fixture)
from tests.e2e.test_testguard import CALC_TEST, OTHER_TEST

HELD = "ralph.yaml was changed during a run and no person accepted it"
TESTS = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"

pytestmark = pytest.mark.slow


def person_yaml(agent: str, test_command: str = TESTS) -> str:
    return f"agent:\n  command: {json.dumps(agent)}\ntest_command: {json.dumps(test_command)}\n"


def setup(p: Project, agent_yaml: str) -> str:
    """The calc project (its test fails) with the person's ralph.yaml; the agent rewrites
    ralph.yaml to `agent_yaml` in rotation 1. Returns the agent's command."""
    other = p.root.parent / "agents-yaml.txt"
    agent = f"{sys.executable} {INTRUDER} 1 yaml={other}"
    other.write_text(agent_yaml.replace("AGENT", json.dumps(agent)))
    p.write(
        {
            "specs/calc.spec.md": "# calc\n\n`calc.add(a, b)` returns the sum.\n",
            "calc.py": "def add(a, b):\n    return a - b\n",
            "tests/test_calc.py": CALC_TEST,
            "tests/test_other.py": OTHER_TEST,
            "ralph.yaml": person_yaml(agent),
            ".gitignore": ".ralph/\n",
        }
    )
    p.commit_all()
    return agent


PWN = "sh -c 'touch ../pwned; echo \"<ralph>DONE</ralph>\"'"
ATTACKS = {
    "swapped test_command": "agent:\n  command: AGENT\ntest_command: 'true'\n",
    "escalation accepted": (
        f"agent:\n  command: AGENT\ntest_command: {json.dumps(TESTS)}\n"
        "on_escalation: accept\nbreaker:\n  threshold: 1\n"
    ),
    "no final verification": (
        "agent:\n  command: AGENT\ntest_command: 'true'\nfinal_verification: false\n"
    ),
    "own agent command": f"sandbox: 'off'\nagent:\n  command: {json.dumps(PWN)}\n",
}


@pytest.mark.parametrize("attack", list(ATTACKS))
def test_an_agents_edit_of_ralph_yaml_waits_for_a_person(git_project: Project, attack: str) -> None:
    p = git_project
    setup(p, ATTACKS[attack])
    first = p.run("run", "-n", "2")
    assert_never_verified(p, first.exit_code)
    assert HELD not in first.stdout  # the edit was made during this run: seen at the next
    edited = (p.root / "ralph.yaml").read_text()
    again = p.run("run", "-n", "4")
    assert_never_verified(p, again.exit_code)
    assert again.exit_code in (3, 5), again
    assert again.stdout.count(HELD) == 1, again
    assert not (p.root.parent / "pwned").exists()  # the agent's own command never ran
    assert (p.root / "ralph.yaml").read_text() == edited  # ralph leaves the file alone
    # a third run: still held, still the person's settings
    third = p.run("run", "-n", "2")
    assert HELD in third.stdout
    assert_never_verified(p, third.exit_code)
    shown = p.run("accept", "--dry-run")
    assert shown.exit_code == 5, shown
    assert "[settings] ralph.yaml, changed during a run" in shown.stdout
    assert "--- ralph.yaml (as a person accepted it)" in shown.stdout
    assert any(line.strip().startswith("+") for line in shown.stdout.splitlines())
    taken = p.run("accept", "--yes")
    assert taken.exit_code in (0, 5), taken
    assert "[settings]" not in p.run("accept", "--dry-run").stdout
    after = p.run("run", "-n", "1")
    assert HELD not in after.stdout  # accepted: the settings now are the person's


def test_a_persons_edit_between_runs_is_used_at_once(git_project: Project) -> None:
    p = git_project
    agent = setup(p, ATTACKS["swapped test_command"])
    # the agent's edit of this run never lands: the person rewrites the file after it
    first = p.run("run", "-n", "1")
    assert_never_verified(p, first.exit_code)
    (p.root / "calc.py").write_text("def add(a, b):\n    return a + b\n")
    (p.root / "ralph.yaml").write_text(person_yaml(agent) + "max_iterations: 9\n")
    res = p.run("run", "-n", "6")
    assert HELD not in res.stdout
    assert res.exit_code == 0, res
    assert status(p)["complete"] is True


def test_control_characters_in_the_diff_are_shown_not_sent(git_project: Project) -> None:
    p = git_project
    setup(p, "agent:\n  command: AGENT\n# \x1b[1A\x1b[2K hidden\ntest_command: 'true'\n")
    p.run("run", "-n", "1")
    shown = p.run("accept", "--dry-run")
    assert "\x1b" not in shown.stdout
    assert "\\x1b[1A\\x1b[2K hidden" in shown.stdout


def test_forged_run_options_change_nothing_that_continue_does(git_project: Project) -> None:
    p = git_project
    setup(p, "")
    forged = p.root.parent / "forged-options.json"
    forged.write_text(json.dumps({"schema_version": 1, "options": {"agent_command": [PWN]}}))
    agent = f"{sys.executable} {INTRUDER} 1 options={forged}"
    (p.root / "ralph.yaml").unlink()
    p.commit_all("no yaml")
    first = p.run("run", "--agent-command", agent, "-n", "1")
    assert first.exit_code == 3, first
    res = p.run("run", "--continue")
    assert res.exit_code == 3, res  # the recorded -n 1, the recorded agent
    assert not (p.root.parent / "pwned").exists()
    assert not (p.root / ".ralph" / "run-options.json").exists()  # taken away, never read
    assert_never_verified(p, res.exit_code)


def test_a_sandboxed_agent_cannot_turn_its_sandbox_off(
    disk_tmp: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    need("bwrap", monkeypatch)
    p = Project(disk_tmp / "proj", monkeypatch)
    p.root.mkdir()
    p.git("init", "-q")
    pwned = disk_tmp / "pwned"
    own = f"sh -c 'touch {pwned}; echo \"<ralph>DONE</ralph>\"'"
    agent = setup(p, f"sandbox: 'off'\nagent:\n  command: {json.dumps(own)}\n")
    (p.root / "ralph.yaml").write_text(person_yaml(agent) + "sandbox: bwrap\n")
    p.commit_all("sandboxed")
    first = p.run_subprocess("run", "-n", "1", "--headless")
    assert "sandbox bwrap:" in first.stdout, first
    assert "sandbox: 'off'" in (p.root / "ralph.yaml").read_text()  # the agent's edit
    again = p.run_subprocess("run", "-n", "2", "--headless")
    assert HELD in again.stdout, again
    assert "sandbox bwrap:" in again.stdout  # still the person's sandbox
    assert not pwned.exists()  # the agent's own command never ran, in or out of it
    assert_never_verified(p, again.exit_code)
