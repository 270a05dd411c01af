"""End to end with the REAL Claude Code and Codex CLIs against the scripted local mock: what
their limits say reaches ralph's pool (parking at a utilisation threshold, a weekly limit ending
the run with exit 4 and the right time), a model chosen per mode reaches the CLI, and a judge's
usage counts against --max-cost. No test waits for a real reset: the resets are far, and the
outcome (exit 4 with the time to come back) proves the decision."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any

import pytest

from ralph.rules.agents.pool import clock
from tests.conftest import Project
from tests.e2e.test_agent_clis import (
    ROTATION_TIMEOUT,
    need,
    put_on_path,
    setup_for,
)
from tests.model import faults
from tests.model.faults import unified

pytestmark = [pytest.mark.slow]


def oauth(setup: Any) -> None:
    """The subscription path: Claude Code reads the unified rate-limit headers then."""
    del setup.env["ANTHROPIC_API_KEY"]
    setup.env["CLAUDE_CODE_OAUTH_TOKEN"] = "sk-ant-oat01-mock"


def yaml(setup: Any, **extra: Any) -> str:
    agent = {
        "name": "claude",
        "env": setup.env,
        "timeout": ROTATION_TIMEOUT,
        "idle_timeout": ROTATION_TIMEOUT,
    }
    agent.update(extra.pop("agent", {}))
    return json.dumps({"agent": agent, "final_verification": False, **extra})


def run_ralph(project: Project, *args: str) -> Any:
    return project.run_subprocess("run", "--plain", *args, timeout=600)


def test_claude_is_parked_at_the_utilisation_threshold_of_its_session_window(
    git_project: Project, tmp_path: Path, mock_llm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The subscription reports 95 % of the five-hour window used: with pause_at 90 ralph parks
    Claude until the window resets instead of running it into the wall; the reset is two hours
    away and pool.max_wait one second, so the run ends with exit 4 and that exact time."""
    need("claude")
    reset = int(time.time()) + 7200
    warning = unified("allowed_warning", "five_hour", "5h", reset, 0.95)
    script = {
        "rotations": [{"steps": [{"text": "Done. <ralph>DONE</ralph>", "headers": warning}]}],
        "exhausted_rotations": "repeat_last",
    }
    mock = mock_llm(script, git_project.root)
    setup = setup_for("claude", mock, tmp_path / "home", monkeypatch)
    oauth(setup)
    put_on_path(monkeypatch)
    git_project.write(
        {
            "PROMPT.md": "# Goal\n\nNothing to do.\n",
            "ralph.yaml": yaml(setup, limits={"pause_at": 90}, pool={"max_wait": 1}),
        }
    )
    git_project.commit_all()
    res = run_ralph(git_project)
    assert res.exit_code == 4, res
    out = res.stdout + res.stderr
    assert "claude parked until" in out and "session window is at 95%" in out, out
    assert f"run ralph again after {clock(reset, time.time())}" in res.stderr
    ends = git_project.rotation_ends()
    assert [e["signal"] for e in ends] == ["DONE"]  # parked after a good rotation, not refused
    saved = json.loads((git_project.root / ".ralph" / "limits.json").read_text())
    assert saved["agents"]["claude"]["session"]["utilization"] == 0.95


def test_an_exhausted_weekly_window_ends_the_run_with_exit_4_and_the_right_time(
    git_project: Project, tmp_path: Path, mock_llm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Claude Code refused by its weekly window, reset in three hours (within pool.max_wait):
    a weekly window is not sat out unless asked, so exit 4 with the exact time."""
    need("claude")
    reset = int(time.time()) + 3 * 3600
    refused = unified("rejected", "seven_day", "7d", reset, 1.0)
    step = {
        "error": {"status": 429, "type": "rate_limit_error", "message": "Error", "headers": refused}
    }
    mock = mock_llm({"rotations": [{"steps": [step]}]}, git_project.root)
    setup = setup_for("claude", mock, tmp_path / "home", monkeypatch)
    oauth(setup)
    put_on_path(monkeypatch)
    git_project.write({"PROMPT.md": "# Goal\n\nWork.\n", "ralph.yaml": yaml(setup)})
    git_project.commit_all()
    res = run_ralph(git_project)
    assert res.exit_code == 4, res
    assert f"run ralph again after {clock(reset, time.time())}" in res.stderr, res.stderr
    assert "weekly" in res.stderr
    [end] = git_project.rotation_ends()
    assert end["fault"] == "rate_limit"


def test_the_model_of_each_mode_reaches_the_real_cli(
    git_project: Project, tmp_path: Path, mock_llm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """models: {implement: claude-strong, review: claude-cheap}: the mock sees the strong model
    in the IMPLEMENT rotation's requests and the cheap one in the REVIEWs."""
    need("claude")
    script = {
        "rotations": [{"steps": [{"text": "Done. <ralph>DONE</ralph>"}]}],
        "exhausted_rotations": "repeat_last",
    }
    mock = mock_llm(script, git_project.root)
    setup = setup_for("claude", mock, tmp_path / "home", monkeypatch)
    put_on_path(monkeypatch)
    models = {"implement": "claude-strong", "review": "claude-cheap"}
    git_project.write(
        {"PROMPT.md": "# Goal\n\nNothing.\n", "ralph.yaml": yaml(setup, agent={"models": models})}
    )
    git_project.commit_all()
    res = run_ralph(git_project)
    assert res.exit_code == 0, res
    seen = [r["model"] for r in mock.requests() if r.get("path", "").startswith("/v1/messages")]
    # one model per rotation, in order (requests without tools, if any, use a small model)
    main = [m for m in seen if m in ("claude-strong", "claude-cheap")]
    assert main[0] == "claude-strong" and set(main[1:]) == {"claude-cheap"}, seen
    assert main.count("claude-strong") >= 1 and main.count("claude-cheap") >= 2


def test_a_real_judges_usage_counts_against_max_cost(
    git_project: Project, tmp_path: Path, mock_llm: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The coder is a custom command (no price); the real Claude Code judges its semantic check
    and reports a price: the judge's cost alone passes --max-cost and the run stops (exit 3)."""
    import sys

    from tests.conftest import FAKES

    need("claude")
    big = {"input_tokens": 400_000, "output_tokens": 20_000}
    script = {
        "rotations": [{"steps": [{"text": "NOT_VERIFIED: nothing there", "usage": big}]}],
        "exhausted_rotations": "repeat_last",
    }
    mock = mock_llm(script, git_project.root)
    setup = setup_for("claude", mock, tmp_path / "home", monkeypatch)
    put_on_path(monkeypatch)
    coder = git_project.root.parent / "coder.json"
    coder.write_text(json.dumps({"*": [{"signal": "DONE"}]}))
    command = [sys.executable, str(FAKES / "scripted_agent.py"), str(coder)]
    claude = json.loads(yaml(setup))["agent"]
    config = {
        "agents": [{"name": "coder", "command": command}, claude],
        "pool": {"rotation": "fallback"},
        "final_verification": False,
    }
    git_project.write(
        {
            "PROMPT.md": "---\nchecks:\n  - method: semantic\n    config: {check_for: [x]}\n"
            "---\n# goal\n",
            "ralph.yaml": json.dumps(config),
        }
    )
    git_project.commit_all()
    res = run_ralph(git_project, "--max-cost", "0.01", "-n", "10")
    assert res.exit_code == 3, res
    assert "cost budget reached" in res.stdout + res.stderr
    state = git_project.state()
    assert state["agents"]["claude"]["cost_usd"] > 0.01
    assert [e["agent"] for e in git_project.rotation_ends()] == ["coder"]


@pytest.mark.parametrize(
    ("agent", "step", "window"),
    [
        # Gemini's daily free-tier quota: TerminalQuotaError, exit 173
        ("gemini", faults.GEMINI_DAILY_QUOTA, "daily"),
        # opencode: a per-minute 429 after its own quick retries (honours retry-after)
        (
            "opencode",
            {
                "error": {
                    "status": 429,
                    "type": "rate_limit_error",
                    "message": "This request would exceed the rate limit for your organization",
                    "headers": {"retry-after": "0"},
                }
            },
            "short",
        ),
    ],
    ids=["gemini-daily-quota", "opencode-429"],
)
def test_other_clis_limits_are_read_from_the_real_cli(
    agent: str,
    step: dict[str, Any],
    window: str,
    tmp_path: Path,
    mock_llm: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.e2e.test_agent_clis import one_rotation

    need(agent)
    root = tmp_path / "work"
    root.mkdir()
    script = step if "steps" in step else {"steps": [step]}
    mock = mock_llm(script, root)
    setup = setup_for(agent, mock, tmp_path / "home", monkeypatch)
    put_on_path(monkeypatch)
    result = one_rotation(agent, setup, root, "Do the work.")
    assert result.fault is not None, (result.error, result.process.stderr_tail[-2000:])
    assert (result.fault.kind, result.fault.window) == ("rate_limit", window)
    if window == "daily":  # a refused window is recorded as such
        assert [(lim.window, lim.status) for lim in result.limits] == [("daily", "rejected")]
    else:  # a short limit is retried within seconds, not recorded as a window
        assert result.limits == ()
