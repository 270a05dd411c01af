"""Faults through the real path: a fake `claude` first on PATH prints recorded-shape stream-json
(rate limits with and without a reset time, an auth error, a context overflow, usage and cost),
parsed by the built-in Claude Code adapter, handled by the pool and the loop."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ralph.rules.agents.pool import clock
from tests.conftest import FAKES, SCRIPTED_AGENT, Project
from tests.platforms import posix_signals, wrapper

FAKE_CLAUDE = FAKES / "fake_claude.py"
Script = Callable[[list[dict[str, Any]]], Path]


@pytest.fixture
def claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Script:
    """Put a fake `claude` first on PATH; calling the fixture sets its script."""
    bin_dir = tmp_path / "bin"
    wrapper(bin_dir, "claude", [sys.executable, str(FAKE_CLAUDE)])
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    script = tmp_path / "claude-script.json"
    monkeypatch.setenv("FAKE_CLAUDE_SCRIPT", str(script))

    def set_steps(steps: list[dict[str, Any]]) -> Path:
        script.write_text(json.dumps(steps))
        return script

    return set_steps


def claude_calls(script: Path) -> int:
    calls = script.with_name(script.name + ".calls.jsonl")
    return len(calls.read_text().splitlines()) if calls.exists() else 0


def worklog(project: Project, event: str) -> list[dict[str, Any]]:
    lines = (project.root / ".ralph" / "worklog.jsonl").read_text().splitlines()
    return [e for e in map(json.loads, lines) if e.get("event") == event]


def used(project: Project) -> list[tuple[str, str]]:
    return [(e["agent"], e["signal"]) for e in project.rotation_ends()]


def handoff(project: Project) -> str:
    return next((project.root / ".ralph" / "handoffs").glob("*.md")).read_text()


DONE = {"kind": "done", "input": 1000, "output": 100, "cost": 0.05}


# ------------------------------------------------------------------ rate limits


def test_a_rate_limit_benches_the_agent_and_the_next_rotation_goes_to_another(
    git_project: Project, claude: Script
) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    git_project.commit_all()
    script = claude([{"kind": "rate_limit", "resets_in": 3600, "write": {"half.txt": "x"}}])
    other = git_project.script({"*": [{"signal": "DONE"}]})
    res = git_project.run("run", "--plain", "--agent", "claude", "--agent-command", other)
    assert res.exit_code == 0, res
    name = SCRIPTED_AGENT.stem
    # claude once (rate-limited), then only the other agent: claude is benched for an hour
    # (the ERROR with changes sent the spec back to 0/3: three DONEs follow)
    assert used(git_project) == [("claude", "ERROR")] + [(name, "DONE")] * 3
    assert claude_calls(script) == 1
    first = git_project.rotation_ends()[0]
    assert first["fault"] == "rate_limit"
    assert "You've hit your session limit" in first["note"]
    # its changes are kept and counted: never lost, never DONE
    assert (git_project.root / "half.txt").read_text() == "x"
    assert first["files_changed"] == 1 and first["done_count"] == 0
    assert "cut off by the agent's usage limit" in handoff(git_project)
    assert "warning: claude until" in res.stdout


def test_a_single_agent_waits_for_a_known_reset_then_carries_on(
    git_project: Project, claude: Script
) -> None:
    # (this fake Claude has no VERIFY answer: the final verification is not what is tested)
    git_project.write({"PROMPT.md": "goal\n", "ralph.yaml": "final_verification: false\n"})
    script = claude([{"kind": "rate_limit", "resets_in": 2}, DONE])
    started = time.monotonic()
    res = git_project.run("run", "--plain", "--agent", "claude")
    assert res.exit_code == 0, res
    assert time.monotonic() - started >= 1.0  # it did wait
    assert "waiting until" in res.stdout and "Ctrl-C stops" in res.stdout
    waits = worklog(git_project, "wait")
    assert len(waits) == 1 and "rate-limited" in waits[0]["reason"]
    assert used(git_project) == [("claude", "ERROR")] + [("claude", "DONE")] * 3
    assert claude_calls(script) == 4


NO_RESET = {"kind": "rate_limit", "text": "You've hit your usage limit. Try again later."}


def test_a_short_limit_with_a_single_agent_is_waited_out_and_retried_not_exit_4(
    git_project: Project, claude: Script
) -> None:
    # an API 429 (per minute, no reset time): today's 15-minute give-up was wrong, a re-run a
    # second later succeeds; ralph waits the short back-off and carries on by itself
    git_project.write(
        {
            "PROMPT.md": "goal\n",
            "ralph.yaml": "final_verification: false\npool: {short_backoff: 0.3}\n",
        }
    )
    script = claude([{"kind": "rate_limit"}, {"kind": "rate_limit"}, DONE])
    res = git_project.run("run", "--plain", "--agent", "claude")
    assert res.exit_code == 0, res
    assert used(git_project) == [("claude", "ERROR")] * 2 + [("claude", "DONE")] * 3
    assert claude_calls(script) == 5
    assert len(worklog(git_project, "wait")) == 2


def test_no_agent_and_no_reset_time_stops_with_exit_4_and_when_to_retry(
    git_project: Project, claude: Script
) -> None:
    git_project.write({"PROMPT.md": "goal\n", "ralph.yaml": "pool: {backoff: 1200}\n"})
    script = claude([NO_RESET])  # a usage limit that says no reset time
    before = time.time()
    res = git_project.run("run", "--agent", "claude", "-n", "10")
    after = time.time()
    assert res.exit_code == 4, res
    assert claude_calls(script) == 1  # never loops on it
    assert "error: every agent is rate-limited or out (claude back-off until" in res.stderr
    # the rule's own format: `HH:MM` today, with the day when 20 minutes later is tomorrow
    retry = {clock(t + 1200, t) for t in (before, after)}
    assert any(f"hint: run ralph again after {hhmm}" in res.stderr for hhmm in retry), res
    assert worklog(git_project, "run_end")[-1]["exit_code"] == 4
    assert git_project.state()["specs"][0]["last_status"] == "ERROR"


def test_every_agent_of_a_pool_rate_limited_without_reset_time_is_exit_4(
    git_project: Project, claude: Script
) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    claude([NO_RESET])
    res = git_project.run("run", "--agent", "claude", "--agent", "claude", "-n", "10")
    assert res.exit_code == 4, res
    assert used(git_project) == [("claude", "ERROR"), ("claude#2", "ERROR")]


def test_a_reset_further_away_than_max_wait_is_exit_4_not_a_wait(
    git_project: Project, claude: Script
) -> None:
    git_project.write({"PROMPT.md": "goal\n", "ralph.yaml": "pool: {max_wait: 60}\n"})
    claude([{"kind": "rate_limit", "resets_in": 7200}])
    started = time.monotonic()
    res = git_project.run("run", "--agent", "claude")
    assert res.exit_code == 4, res
    assert time.monotonic() - started < 30
    assert worklog(git_project, "wait") == []
    assert "hint: run ralph again after" in res.stderr


@posix_signals
@pytest.mark.slow
def test_ctrl_c_during_the_wait_ends_the_run_cleanly(git_project: Project, claude: Script) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    claude([{"kind": "rate_limit", "resets_in": 120}])
    proc = subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", "--plain", "--agent", "claude"],
        cwd=git_project.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_event(git_project, "wait")
        # `ralph status --json` shows the live run waiting, and why
        run = json.loads(git_project.run_subprocess("status", "--json").stdout)["run"]
        assert run["waiting_until"] > time.time()
        assert run["pool"][0]["status"].startswith("claude until ")
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130, (out, err)
    assert "waiting until" in out
    end = worklog(git_project, "run_end")[-1]
    assert end["exit_code"] == 130 and "waiting for a rate limit" in end["reason"]
    assert not (git_project.root / ".ralph" / "run.json").exists()


@pytest.mark.slow
def test_ralph_cancel_during_the_wait_ends_the_run(git_project: Project, claude: Script) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    claude([{"kind": "rate_limit", "resets_in": 120}])
    proc = subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", "--plain", "--agent", "claude"],
        cwd=git_project.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for_event(git_project, "wait")
        cancel = git_project.run_subprocess("cancel")
        assert cancel.exit_code == 0, cancel
        out, err = proc.communicate(timeout=30)
    finally:
        proc.kill()
    assert proc.returncode == 130, (out, err)
    end = worklog(git_project, "run_end")[-1]
    assert "cancelled (ralph cancel) while waiting" in end["reason"]


def wait_for_event(project: Project, event: str) -> None:
    log = project.root / ".ralph" / "worklog.jsonl"
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        if log.exists() and f'"event": "{event}"' in log.read_text():
            return
        time.sleep(0.1)
    pytest.fail(f"no {event} event in the worklog")


# ------------------------------------------------------------------ auth, overflow


def test_an_auth_error_stops_at_once_with_the_agents_message(
    git_project: Project, claude: Script
) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    script = claude([{"kind": "auth"}])
    other = git_project.script({"*": [{"signal": "DONE"}]})
    res = git_project.run("run", "--agent", "claude", "--agent-command", other, "-n", "10")
    assert res.exit_code == 1, res
    assert claude_calls(script) == 1
    assert git_project.calls() == []  # stopped even though another agent was available
    assert "error: claude refused to run: Invalid API key · Fix external API key" in res.stderr
    assert "hint: log the agent in" in res.stderr
    assert used(git_project) == [("claude", "ERROR")]
    assert worklog(git_project, "run_end")[-1]["exit_code"] == 1


def test_claudes_refusal_as_root_gets_the_sandbox_hint_not_a_login_hint(
    git_project: Project, claude: Script
) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    claude([{"kind": "root"}])
    res = git_project.run("run", "--agent", "claude", "-n", "3")
    assert res.exit_code == 1, res
    assert "root/sudo privileges" in res.stderr
    hint = [line for line in res.stderr.splitlines() if line.startswith("hint: ")]
    assert hint and "set IS_SANDBOX=1 in agent.env" in hint[0], res.stderr
    assert "if this machine is a sandbox" in hint[0] and "log the agent in" not in res.stderr


def test_a_context_overflow_is_rotate_with_a_note_not_a_crash(
    git_project: Project, claude: Script
) -> None:
    git_project.write({"PROMPT.md": "goal\n", "ralph.yaml": "pool: {max_failures: 1}\n"})
    claude([{"kind": "overflow"}, {"kind": "overflow"}, DONE])
    res = git_project.run("run", "--agent", "claude", "-n", "3")
    assert res.exit_code == 3, res
    # max_failures 1 would have evicted a crashing agent after its first rotation
    assert used(git_project) == [("claude", "ROTATE"), ("claude", "ROTATE"), ("claude", "DONE")]
    assert "context overflow: Prompt is too long" in git_project.rotation_ends()[0]["note"]
    assert "ran out of context" in handoff(git_project)


# ------------------------------------------------------------------ usage, cost, budgets


def test_usage_and_cost_reach_state_worklog_display_and_status(
    git_project: Project, claude: Script
) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    claude([DONE])
    other = git_project.script({"*": [{"signal": "DONE"}]})
    report = git_project.root.parent / "report.json"
    res = git_project.run(
        "run",
        "--plain",
        "--agent",
        "claude",
        "--agent-command",
        other,
        "--report-json",
        str(report),
    )
    assert res.exit_code == 0, res
    assert json.loads(report.read_text())["totals"]["cost_usd"] == 0.1  # the CI report sums it
    ends = git_project.rotation_ends()
    assert [(e["agent"], e["input_tokens"], e["cost_usd"]) for e in ends] == [
        ("claude", 1000, 0.05),
        (SCRIPTED_AGENT.stem, None, None),
        ("claude", 1000, 0.05),
    ]
    state = git_project.state()
    # three spec rotations and the final verification (by the other agent: fresh eyes)
    assert state["usage"] == {
        "rotations": 4,
        "input_tokens": 2000,
        "output_tokens": 200,
        "cost_usd": 0.1,
        "unpriced": 2,
    }
    assert state["agents"]["claude"]["cost_usd"] == 0.1
    assert state["agents"][SCRIPTED_AGENT.stem]["unpriced"] == 2
    assert state["specs"][0]["usage"]["input_tokens"] == 2000
    assert "usage: 1.0k in · 100 out · $0.05" in res.stdout  # each claude rotation line
    (said,) = [line for line in res.stdout.splitlines() if " this run: " in line]
    assert "2.0k in · 200 out · $0.10+ · time " in said, said
    status = git_project.run("status", "--json")
    data = json.loads(status.stdout)
    assert data["usage"]["cost_usd"] == 0.1 and data["agents"]["claude"]["rotations"] == 2
    assert data["specs"][0]["usage"]["output_tokens"] == 200
    plain = git_project.run_subprocess("status")
    assert "usage: 2.0k in · 200 out · $0.10+" in plain.stdout
    assert "claude: 2.0k in · 200 out · $0.10 (2 rotations)" in plain.stdout


def test_the_final_verifications_usage_counts_too(git_project: Project, claude: Script) -> None:
    git_project.write({"PROMPT.md": "goal\n"})
    verify = {"kind": "verify_pass", "input": 500, "output": 50, "cost": 0.02}
    claude([DONE, DONE, DONE, verify])
    res = git_project.run("run", "--plain", "--agent", "claude")
    assert res.exit_code == 0, res
    state = git_project.state()
    assert state["usage"]["rotations"] == 4
    assert state["usage"]["input_tokens"] == 3500
    assert state["usage"]["cost_usd"] == pytest.approx(0.17)
    assert state["specs"][0]["usage"]["input_tokens"] == 3000  # the spec's own rotations only


@pytest.mark.parametrize(
    ("args", "yaml", "reason"),
    [
        (["--max-cost", "0.1"], "", "cost budget reached ($0.10 of $0.10 this run)"),
        ([], "max_cost: 0.08\n", "cost budget reached ($0.10 of $0.08 this run)"),
        (["--max-tokens", "2000"], "", "token budget reached (2.2k of 2.0k tokens this run)"),
        ([], "max_tokens: 1100\n", "token budget reached (1.1k of 1.1k tokens this run)"),
    ],
)
def test_budgets_stop_the_run_with_exit_3_before_the_next_rotation(
    git_project: Project, claude: Script, args: list[str], yaml: str, reason: str
) -> None:
    git_project.write({"PROMPT.md": "goal\n", "specs/b.spec.md": "b\n", "ralph.yaml": yaml})
    claude([DONE])
    res = git_project.run("run", "--plain", "--agent", "claude", *args)
    assert res.exit_code == 3, res
    assert reason in res.stdout
    assert worklog(git_project, "run_end")[-1]["reason"] == reason
    rotations = len(git_project.rotation_ends())
    assert rotations == (1 if "1.1k" in reason else 2)


def test_budgets_count_this_run_only(git_project: Project, claude: Script) -> None:
    git_project.write({"PROMPT.md": "goal\n", "specs/b.spec.md": "b\n"})
    claude([DONE])
    assert git_project.run("run", "--agent", "claude", "-n", "2").exit_code == 3
    # $0.10 spent before; this run may spend $0.10 more: two more rotations
    res = git_project.run("run", "--agent", "claude", "--max-cost", "0.1")
    assert res.exit_code == 3, res
    assert len(git_project.rotation_ends()) == 4


def test_a_judges_usage_counts_against_max_cost(git_project: Project, claude: Script) -> None:
    """The coder (a custom command, no price) says DONE; Claude Code judges its semantic check
    at $0.60 a call: two judgements pass --max-cost 1.00 and the run stops (exit 3) before a
    third rotation; the judge's tokens and cost are in the run's, the agent's and the spec's
    totals and in the worklog."""
    coder = git_project.script({"*": [{"signal": "DONE"}]})
    git_project.write(
        {
            "PROMPT.md": "---\nchecks:\n  - method: semantic\n    config: {check_for: [x]}\n"
            "---\n# goal\n",
            "ralph.yaml": json.dumps(
                {
                    "agents": [{"name": "coder", "command": coder}, "claude"],
                    "pool": {"rotation": "fallback"},
                    "final_verification": False,
                }
            ),
        }
    )
    judge = claude(
        [{"kind": "done", "text": "NOT_VERIFIED: no x", "input": 900, "output": 100, "cost": 0.6}]
    )
    res = git_project.run("run", "--plain", "--max-cost", "1.00", "-n", "10")
    assert res.exit_code == 3, res
    assert "cost budget reached ($1.20" in res.stderr + res.stdout
    assert claude_calls(judge) == 2
    assert used(git_project) == [("coder", "REFUSED")] * 2
    state = git_project.state()
    assert state["usage"]["cost_usd"] == pytest.approx(1.2)
    assert state["agents"]["claude"]["input_tokens"] == 1800
    assert state["specs"][0]["usage"]["cost_usd"] == pytest.approx(1.2)
    judged = worklog(git_project, "judge")
    assert [(j["agent"], j["cost_usd"]) for j in judged] == [("claude", 0.6)] * 2


def test_bad_budget_flags(project: Project) -> None:
    project.write({"PROMPT.md": "goal\n"})
    res = project.run("run", "--agent", "demo", "--max-cost", "0")
    assert res.exit_code == 2 and "--max-cost: must be more than 0, got 0.0" in res.stderr
    res = project.run("run", "--agent", "demo", "--max-tokens", "0")
    assert res.exit_code == 2


# ------------------------------------------------------------------ across adapters


def test_a_pool_of_two_real_adapters_rotates_past_a_rate_limit(
    git_project: Project, claude: Script, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code benched for an hour; the Codex adapter (recorded `codex exec --json` output)
    carries the run to 3/3, its tokens counted, its price unknown."""
    from tests.agent_helpers import fake_cli, fixture

    # (the recorded Codex output has no VERIFY answer: the final verification is not tested here)
    git_project.write({"PROMPT.md": "goal\n", "ralph.yaml": "final_verification: false\n"})
    claude([{"kind": "rate_limit", "resets_in": 3600}])
    codex = fake_cli(
        tmp_path / "codex-bin",
        "codex",
        monkeypatch,
        stdout=fixture("codex-write-done.stdout"),
        stderr=fixture("codex-write-done.stderr"),
    )
    res = git_project.run("run", "--agent", "claude", "--agent", "codex")
    assert res.exit_code == 0, res
    assert used(git_project) == [("claude", "ERROR")] + [("codex", "DONE")] * 3
    assert len(codex.read_text().splitlines()) == 3
    agents = git_project.state()["agents"]
    assert agents["codex"]["input_tokens"] == 3 * 1334 and agents["codex"]["unpriced"] == 3


def test_every_adapter_out_of_quota_and_nothing_near_to_wait_for_is_exit_4(
    git_project: Project, claude: Script, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude's usage limit (no reset time) and Codex's usage limit ("try again at Jan 1st,
    2030 12:00 AM", far past max_wait): nobody to wait for, exit 4."""
    from tests.agent_helpers import fake_cli, fixture

    git_project.write({"PROMPT.md": "goal\n"})
    claude([NO_RESET])
    fake_cli(
        tmp_path / "codex-bin",
        "codex",
        monkeypatch,
        stdout=fixture("codex-usage-limit.stdout"),
        stderr=fixture("codex-usage-limit.stderr"),
        exit_code=1,
    )
    res = git_project.run("run", "--agent", "claude", "--agent", "codex", "-n", "10")
    assert res.exit_code == 4, res
    assert used(git_project) == [("claude", "ERROR"), ("codex", "ERROR")]
    assert "codex until" in res.stderr and "claude back-off until" in res.stderr
    assert [e["fault"] for e in git_project.rotation_ends()] == ["rate_limit", "rate_limit"]
