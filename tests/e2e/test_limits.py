"""Know the windows, park before the wall: what each agent's CLI says about its limits is
recorded (.ralph/limits.json, `ralph status`, `ralph agents`); `limits.pause_at` parks an agent
whose window reached it until the reset; an exhausted weekly window ends the run with exit 4
and the exact time to come back, or with --wait-for-reset the run waits and resumes."""

from __future__ import annotations

import json
import time
from typing import Any

from ralph.rules.agents.pool import clock
from tests.conftest import Project
from tests.e2e.test_pool_faults import DONE, Script, claude, claude_calls, used, worklog  # noqa: F401

# ruff: noqa: F811 -- the fake `claude` fixture comes from test_pool_faults


def limits_file(project: Project) -> Any:
    return json.loads((project.root / ".ralph" / "limits.json").read_text())


def test_parked_at_pause_at_until_the_window_resets_then_resumes(
    git_project: Project, claude: Script
) -> None:
    git_project.write(
        {
            "PROMPT.md": "goal\n",
            "ralph.yaml": "final_verification: false\nlimits: {pause_at: 90}\n",
        }
    )
    warning = {"status": "allowed_warning", "rateLimitType": "five_hour", "utilization": 0.93}
    script = claude([{**DONE, "limit": {**warning, "resets_in": 2}}, DONE])
    started = time.monotonic()
    res = git_project.run("run", "--plain", "--agent", "claude")
    assert res.exit_code == 0, res
    assert time.monotonic() - started >= 1.0  # it did wait for the reset
    assert "claude parked until" in res.stdout + res.stderr
    assert "its session window is at 93% (limits.pause_at 90%)" in res.stdout + res.stderr
    assert len(worklog(git_project, "wait")) == 1
    # parked before the wall: never refused, every rotation a DONE
    assert used(git_project) == [("claude", "DONE")] * 3 and claude_calls(script) == 3
    session = limits_file(git_project)["agents"]["claude"]["session"]
    assert session["utilization"] == 0.93 and session["status"] == "allowed_warning"
    status = git_project.run("status")
    assert "limits: claude: session 93%" in status.stdout
    data = json.loads(git_project.run("status", "--json").stdout)
    assert data["limits"]["claude"]["session"]["utilization"] == 0.93


def test_without_pause_at_the_warning_is_recorded_but_nobody_parks(
    git_project: Project, claude: Script
) -> None:
    git_project.write({"PROMPT.md": "goal\n", "ralph.yaml": "final_verification: false\n"})
    warning = {"status": "allowed_warning", "rateLimitType": "five_hour", "utilization": 0.93}
    claude([{**DONE, "limit": {**warning, "resets_in": 3600}}, DONE])
    res = git_project.run("run", "--plain", "--agent", "claude")
    assert res.exit_code == 0, res
    assert "parked" not in res.stdout + res.stderr and not worklog(git_project, "wait")
    assert worklog(git_project, "limits")[0]["windows"][0]["utilization"] == 0.93


def test_an_exhausted_weekly_window_ends_with_exit_4_and_the_exact_time(
    git_project: Project, claude: Script
) -> None:
    git_project.write({"PROMPT.md": "goal\n", "ralph.yaml": "final_verification: false\n"})
    # within pool.max_wait (6 h): a session limit this near would be waited for; a weekly one
    # is not, unless asked (--wait-for-reset)
    script = claude([{"kind": "rate_limit", "resets_in": 3 * 3600, "type": "seven_day"}])
    before = time.time()
    res = git_project.run("run", "--plain", "--agent", "claude")
    assert res.exit_code == 4, res
    assert claude_calls(script) == 1
    resets = int(before + 3 * 3600)
    times = {clock(t, time.time()) for t in (resets, resets + 1)}
    assert any(f"hint: run ralph again after {t}" in res.stderr for t in times), res.stderr
    assert "(weekly window)" in res.stderr
    assert limits_file(git_project)["agents"]["claude"]["weekly"]["status"] == "rejected"


def test_wait_for_reset_parks_the_run_through_a_weekly_window_and_resumes(
    git_project: Project, claude: Script
) -> None:
    git_project.write({"PROMPT.md": "goal\n", "ralph.yaml": "final_verification: false\n"})
    script = claude([{"kind": "rate_limit", "resets_in": 2, "type": "seven_day"}, DONE])
    res = git_project.run("run", "--plain", "--agent", "claude", "--wait-for-reset")
    assert res.exit_code == 0, res
    assert "waiting until" in res.stdout
    assert used(git_project) == [("claude", "ERROR")] + [("claude", "DONE")] * 3
    assert claude_calls(script) == 4
