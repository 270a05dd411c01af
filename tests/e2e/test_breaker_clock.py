"""The breaker's cooldown follows no wall clock step: in a run it runs on the monotonic clock,
and what an earlier run recorded is clamped (a clock stepped back a year waits 300 s, not a
year). Played through the real CLI."""

from __future__ import annotations

import json
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import Project

CRASH = "import sys; sys.exit(2)"


def test_an_opening_time_in_the_future_waits_one_cooldown_not_a_year(git_project: Project) -> None:
    agent = git_project.root.parent / "crash.py"
    agent.write_text(CRASH)
    git_project.write({"PROMPT.md": "# goal\n"})
    broken = f"{sys.executable} {agent}"
    res = git_project.run("run", "--agent-command", broken, "-n", "10")
    assert git_project.state()["breaker"]["state"] == "OPEN", res
    # the clock is stepped back a year since: the opening time is now a year ahead
    state_file = git_project.root / ".ralph" / "state.json"
    state = json.loads(state_file.read_text())
    state["breaker"]["opened_at"] = time.time() + 365 * 24 * 3600
    state_file.write_text(json.dumps(state))
    again = git_project.run("run", "--agent-command", broken, "-n", "10")
    assert again.exit_code == 5, again
    waits = [w for w in again.stdout.split() if w.isdigit()]
    said = again.stdout[again.stdout.index("wait ") :].split()[1]
    assert 0 < int(said) <= 300, (said, waits, again.stdout)


def test_a_wall_clock_step_during_the_run_moves_no_cooldown(tmp_path: Path) -> None:
    """ralph's breaker clock against a wall clock stepped back a year in-process."""
    code = (
        "import time\n"
        "from ralph.run.context import STEADY\n"
        "before = STEADY()\n"
        "real = time.time\n"
        "time.time = lambda: real() - 365 * 24 * 3600\n"
        "after = STEADY()\n"
        "print(after - before)\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert 0 <= float(out.stdout) < 5
