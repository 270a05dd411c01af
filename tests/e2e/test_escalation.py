"""Circuit breaker in the loop, and escalation: Accept / Abort / Continue (seed T3.3, T3.4).

Headless runs (CliRunner's stdin is no terminal) decide by `--on-escalation`; the terminal
question is tested through a real pseudo-terminal.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest

from ralph.run.escalation import (
    Escalation,
)
from tests.conftest import Project
from tests.terminal import on_terminal, read_until

SPEC = "# goal\n- [ ] the work\n"


CRASH = [{"say": "Traceback: boom", "exit": 1}]


# The breaker is the subject here, not the pool: an agent that fails 3 rotations in a row would
# also be evicted, and with no agent left the run ends as an error (exit 1) without asking.
KEEP_AGENT = "pool: {max_failures: null}\n"


def escalation(spec: str | None = "PROMPT.md") -> Escalation:
    return Escalation(spec=spec, failures=3, reasons=("r1", "r2", "r3"), cooldown_left=120)


def test_three_failed_rotations_open_the_breaker_and_headless_default_aborts(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": SPEC, "ralph.yaml": KEEP_AGENT})
    cmd = git_project.fake({"*": CRASH})
    res = git_project.run("run", *cmd)
    assert res.exit_code == 5, res
    assert len(git_project.calls()) == 3  # not one rotation more
    assert "aborted after 3 failures in a row on PROMPT.md" in res.stdout
    # the breaker's notice follows the line of the rotation that opened it
    lines = res.stdout.splitlines()
    opened = next(i for i, line in enumerate(lines) if "circuit breaker open" in line)
    assert "rotation 3 ended: ERROR" in lines[opened - 1], res.stdout
    assert "[1] Accept" in res.stderr and "--on-escalation abort" in res.stderr
    state = git_project.state()
    assert state["breaker"]["state"] == "OPEN"
    assert state["breaker"]["failures"] == 3
    breaker = git_project.worklog("breaker")
    assert [(b["before"], b["after"]) for b in breaker] == [("CLOSED", "OPEN")]
    (choice,) = git_project.worklog("escalation")
    assert (choice["choice"], choice["outcome"], choice["subject"]) == (
        "abort",
        "aborted",
        "PROMPT.md",
    )
    assert "circuit breaker opened" in (git_project.root / ".ralph/errors.log").read_text()
    # a restart does not reset it: within the cooldown it asks again before any agent runs
    again = git_project.run("run", *cmd)
    assert again.exit_code == 5, again
    assert len(git_project.calls()) == 3


def test_accept_takes_the_spec_as_verified(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC, "ralph.yaml": KEEP_AGENT})
    cmd = git_project.fake({"*": CRASH})
    res = git_project.run("run", *cmd, "--on-escalation", "accept")
    assert res.exit_code == 0, res
    spec = git_project.state()["specs"][0]
    assert (spec["done_count"], spec["override"]) == (3, "user_accepted")
    assert git_project.state()["breaker"]["state"] == "CLOSED"
    (choice,) = git_project.worklog("escalation")
    assert choice["outcome"] == "user_accepted"
    assert "accepted as verified by the user" in res.stdout
    status = git_project.run("status", "--json")
    assert '"override": "user_accepted"' in status.stdout


def test_continue_goes_on_without_verification_recorded_as_a_risk(git_project: Project) -> None:
    # the pool would evict an agent after 3 failures too: this one stays, the breaker decides
    git_project.write({"PROMPT.md": SPEC, "ralph.yaml": "pool: {max_failures: null}\n"})
    cmd = git_project.fake({"*": [*CRASH * 3, {"signal": "DONE"}]})
    res = git_project.run("run", *cmd, "--on-escalation", "continue")
    assert res.exit_code == 0, res
    spec = git_project.state()["specs"][0]
    assert spec["override"] == "bypassed"
    assert "going on without verification for PROMPT.md" in res.stdout
    (archived,) = (git_project.root / ".ralph/archive").iterdir()  # the run was verified
    assert "risk: PROMPT.md" in (archived / "errors.log").read_text()
    assert [e["choice"] for e in git_project.worklog("escalation")] == ["continue"]
    assert len(git_project.calls()) == 6  # three failures, then DONE three times


def test_the_headless_choice_can_come_from_ralph_yaml(git_project: Project) -> None:
    git_project.write(
        {"PROMPT.md": SPEC, "ralph.yaml": "on_escalation: accept\nbreaker: {threshold: 2}\n"}
    )
    res = git_project.run("run", *git_project.fake({"*": CRASH}))
    assert res.exit_code == 0, res
    assert len(git_project.calls()) == 2
    assert git_project.worklog("escalation")[0]["choice"] == "accept"


def test_after_the_cooldown_one_trial_runs_and_its_success_closes_the_breaker(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": SPEC, "ralph.yaml": "breaker: {cooldown: 0}\n" + KEEP_AGENT})
    crash = git_project.fake({"*": CRASH})
    assert git_project.run("run", *crash).exit_code == 5
    fixed = git_project.fake({"*": [{"signal": "DONE"}]})
    res = git_project.run("run", *fixed)
    assert res.exit_code == 0, res
    transitions = [(b["before"], b["after"]) for b in git_project.worklog("breaker")]
    assert transitions == [("CLOSED", "OPEN"), ("OPEN", "HALF_OPEN"), ("HALF_OPEN", "CLOSED")]


def test_a_failed_trial_opens_it_again(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC, "ralph.yaml": "breaker: {cooldown: 0}\n" + KEEP_AGENT})
    crash = git_project.fake({"*": CRASH})
    assert git_project.run("run", *crash).exit_code == 5
    res = git_project.run("run", *crash)
    assert res.exit_code == 5, res
    assert len(git_project.calls()) == 4  # exactly one trial
    transitions = [(b["before"], b["after"]) for b in git_project.worklog("breaker")]
    assert transitions[-2:] == [("OPEN", "HALF_OPEN"), ("HALF_OPEN", "OPEN")]


def test_other_specs_progress_does_not_hide_a_spec_that_keeps_failing(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": SPEC, "specs/b.spec.md": "# b\n", "ralph.yaml": KEEP_AGENT})
    cmd = git_project.fake(
        {
            "PROMPT.md": [{"write": {"a.py": "1"}, "exit": 1}, {"exit": 1}, {"exit": 1}],
            "specs/b.spec.md": [{"signal": "DONE"}],
        }
    )
    res = git_project.run("run", *cmd, "-n", "20")
    assert res.exit_code == 5, res
    assert "3 failures in a row on PROMPT.md" in res.stdout


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
@pytest.mark.parametrize(("typed", "code", "override"), [("1", 0, "user_accepted"), ("2", 5, None)])
def test_on_a_terminal_ralph_asks(
    git_project: Project, typed: str, code: int, override: str | None
) -> None:
    git_project.write({"PROMPT.md": SPEC, "ralph.yaml": KEEP_AGENT})
    cmd = git_project.script({"*": CRASH})
    proc, master = on_terminal(["run", "--agent-command", cmd], git_project.root)
    seen = bytearray()
    try:
        read_until(master, b"Enter choice (1/2/3): ", seen)
        assert b"[3] Continue" in seen
        os.write(master, b"what?\n")  # not a choice: asked again
        read_until(master, b"not a choice", seen)
        os.write(master, typed.encode() + b"\n")
        read_until(master, b"finished" if code == 0 else b"stopped (exit 5)", seen)
        assert proc.wait(timeout=60) == code
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    spec = git_project.state()["specs"][0]
    assert spec.get("override") == override
    assert git_project.worklog("escalation")[0]["choice"] == ("accept" if typed == "1" else "abort")


def test_escalation_choices_in_status_json(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC, "ralph.yaml": KEEP_AGENT})
    git_project.run(
        "run",
        *git_project.fake({"*": CRASH}),
        "--on-escalation",
        "continue",
        "-n",
        "4",
    )
    status = git_project.run("status", "--json")
    assert '"state": "CLOSED"' in status.stdout
    assert '"override": "bypassed"' in status.stdout


def test_ralph_reset_closes_the_breaker(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC, "ralph.yaml": KEEP_AGENT})
    cmd = git_project.fake({"*": [*CRASH * 3, {"signal": "DONE"}]})
    assert git_project.run("run", *cmd).exit_code == 5
    assert git_project.run("reset").exit_code == 0
    assert git_project.state()["breaker"]["state"] == "CLOSED"
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
def test_headless_on_a_terminal_never_prompts(git_project: Project) -> None:
    """--headless on a real terminal: --on-escalation decides (abort by default), no question."""
    git_project.write({"PROMPT.md": SPEC, "ralph.yaml": KEEP_AGENT})
    cmd = git_project.script({"*": CRASH})
    proc, master = on_terminal(["run", "--agent-command", cmd, "--headless"], git_project.root)
    seen = bytearray()
    try:
        read_until(master, b"headless: --on-escalation abort", seen)
        assert proc.wait(timeout=60) == 5
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    assert b"Enter choice" not in seen


def test_a_crashing_agent_says_why_and_a_changed_agent_gets_its_trial_at_once(
    git_project: Project, tmp_path: Path
) -> None:
    git_project.write({"PROMPT.md": SPEC})
    crash = tmp_path / "crash.py"
    crash.write_text(
        "import sys\n"
        "sys.stderr.write('loading the model\\n\\x1b[31mboom\\x1b[0m\\n')\n"
        "sys.exit(2)\n"
    )
    broken = f"{sys.executable} {crash}"
    res = git_project.run("run", "--agent-command", broken, "-n", "10")
    # Every agent failed: an error (exit 1, as documented), in the agent's own words.
    assert res.exit_code == 1, res
    assert "note: exit code 2: boom" in res.stdout
    assert "error: every agent failed 3 rotations in a row" in res.stderr
    assert "exit code 2: boom" in res.stderr
    (handoff,) = (git_project.root / ".ralph/handoffs").iterdir()
    assert "The last lines it wrote on stderr:\n\n    loading the model\n    boom\n" in (
        handoff.read_text()
    )
    assert git_project.state()["breaker"]["state"] == "OPEN"

    # The same agent again, within the cooldown: no agent starts, and the way out is named.
    again = git_project.run("run", "--agent-command", broken, "-n", "10")
    assert again.exit_code == 5, again
    assert len(git_project.rotation_ends()) == 3
    assert "`ralph reset`" in again.stdout
    left = re.search(r"wait (\d+) s", again.stdout)
    assert left is not None and 200 < int(left.group(1)) <= 300, again.stdout  # ~300 s left

    # Another agent: its first rotation is the trial, at once; its success closes the breaker.
    fixed = git_project.run("run", *git_project.fake({"*": [{"signal": "DONE"}]}), "-n", "10")
    assert fixed.exit_code == 0, fixed
    breaker = git_project.worklog("breaker")
    assert [(b["before"], b["after"], b["reason"]) for b in breaker] == [
        ("CLOSED", "OPEN", "3 failures in a row"),
        ("OPEN", "HALF_OPEN", "the agent configuration changed"),
        ("HALF_OPEN", "CLOSED", "success"),
    ]
