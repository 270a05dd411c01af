"""One story of the whole job (issue 37): a run killed with kill -9 and continued with
`--continue` is one run in every report (its rotations and tokens agree with `status` and
`history`); the killed part is archived as it is taken over and the takeover says, in one line,
what it stopped; `ralph inspect` names what a dead run left running; `ralph report --job` tells
every run since the last `ralph reset`."""

from __future__ import annotations

import contextlib
import html
import json
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.conftest import Project
from tests.e2e.test_report_figures import PRICE, claude  # noqa: F401 -- the fixture

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="kill -9, a shell wrapper")

STEP = {"input": 30000, "output": 1000, "cost": PRICE}
WAIT = 120.0  # for an event, never a guess: a loaded machine only makes it later
ROW = '<tr><td class="num">'


def _wait_for_calls(calls: Path, count: int, proc: subprocess.Popen[bytes]) -> None:
    """Until the agent has been called `count` times (its own record of each call)."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline and proc.poll() is None:
        if calls.exists() and len(calls.read_text().splitlines()) >= count:
            return
        time.sleep(0.02)
    raise AssertionError(f"the agent was not called {count} times (ralph: {proc.poll()})")


def _kill_left(pids: list[int]) -> None:
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_a_run_killed_and_continued_is_one_run_in_every_report(
    git_project: Project,
    claude: Path,  # noqa: F811 -- the fixture
    tmp_path: Path,
) -> None:
    # two DONEs, a third rotation killed while its agent works, then --continue: a DONE and
    # the final verification
    sleeping = {"kind": "done", **STEP, "sleep": 300}
    script = [{"kind": "done", **STEP}] * 2 + [sleeping, {"kind": "done", **STEP}]
    claude.write_text(json.dumps([*script, {"kind": "verify_pass", **STEP}]))
    git_project.write({"PROMPT.md": "# goal\n- [x] done\n"})
    report, page = tmp_path / "report.json", tmp_path / "run.html"
    args = ["--agent", "claude", "--headless", "--report-json", str(report)]
    first = subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", *args, "--report-html", str(page)],
        cwd=git_project.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    left: list[int] = []
    try:
        _wait_for_calls(Path(f"{claude}.calls.jsonl"), 3, first)
        first.kill()
        first.wait(30)
        # inspect: no run is live, but the dead run's agent still is, by its pid
        seen = json.loads(git_project.run("inspect", "--json").stdout)
        left = [p["pid"] for p in seen.get("left_running", [])]
        assert seen["running"] is False and left, seen
        assert any("fake_claude.py" in p["command"] for p in seen["left_running"])
        said = git_project.run("inspect").stdout
        assert "the last run is dead" in said and f"pid {left[0]}" in said, said
        again = git_project.run_subprocess("run", "--continue", timeout=180)
        assert again.exit_code == 0, again
    finally:
        first.kill()
        first.wait()
        _kill_left(left)
    # the takeover said what it stopped and where the killed part is archived
    (line,) = [x for x in again.stdout.splitlines() if "was killed" in x]
    assert all(f"{pid}" in line for pid in left), line
    archived = re.search(r"archived as (\S+) ", line)
    assert archived is not None, line
    assert not [pid for pid in left if _running(pid)]
    # the reports tell both parts: 3 DONEs and the final verification, each priced
    ends = git_project.rotation_ends()
    assert [e["iteration"] for e in ends] == [1, 2, 4]
    totals = json.loads(report.read_text())["totals"]
    assert totals["rotations"] == 4
    assert (totals["input_tokens"], totals["output_tokens"]) == (4 * 30000, 4 * 1000)
    assert totals["cost_usd"] == round(4 * PRICE, 6)
    status = json.loads(git_project.run("status", "--json").stdout)
    assert status["last_run"]["input_tokens"] == totals["input_tokens"]
    assert status["last_run"]["rotations"] == totals["rotations"]
    assert status["usage"]["input_tokens"] == totals["input_tokens"]
    spec = json.loads(report.read_text())["specs"][0]
    assert spec["rotations"] == 3  # both parts' rotations of the spec
    # the HTML report: every rotation `history` lists, the killed one included
    listed = json.loads(git_project.run("history", "--json").stdout)["rotations"]
    text = page.read_text()
    assert text.count(ROW) == len(listed) == 5, text
    assert "went on with --continue" in html.unescape(text)
    # `ralph report` afterwards tells the same run; the archived killed part is only that part
    again_page, killed_page = tmp_path / "again.html", tmp_path / "killed.html"
    assert git_project.run("report", "--html", str(again_page)).exit_code == 0
    assert again_page.read_text().count(ROW) == 5
    shown = git_project.run("report", "--html", str(killed_page), "--run", archived.group(1))
    assert shown.exit_code == 0, shown
    assert killed_page.read_text().count(ROW) == 3  # rotations 1, 2 and the killed 3


def _running(pid: int) -> bool:
    import psutil

    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.NoSuchProcess:
        return False


def test_a_run_after_one_that_ended_says_nothing_of_a_takeover(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n- [x] done\n"})
    done = git_project.script({"*": [{"signal": "DONE"}]})
    for _ in range(2):
        res = git_project.run_subprocess("run", "--agent-command", done, "-n", "1", "--headless")
        assert res.exit_code in (0, 3), res
        assert "was killed" not in res.stdout + res.stderr
    assert not (git_project.root / ".ralph" / "archive").exists()
    said = git_project.run("inspect")
    assert "dead" not in said.stdout and "still running" not in said.stdout, said.stdout


def test_the_job_report_tells_every_run_since_the_last_reset(
    git_project: Project, tmp_path: Path
) -> None:
    git_project.write({"PROMPT.md": "# goal\n- [x] done\n"})
    done = git_project.script({"*": [{"signal": "DONE"}]})
    for _ in range(2):  # two runs stopped short (max iterations), then one that verifies
        assert git_project.run("run", "--agent-command", done, "-n", "1").exit_code != 0
    assert git_project.run("run", "--agent-command", done).exit_code == 0
    job, last = tmp_path / "job.html", tmp_path / "last.html"
    assert git_project.run("report", "--html", str(job), "--job").exit_code == 0
    assert git_project.run("report", "--html", str(last)).exit_code == 0
    text = html.unescape(job.read_text())
    assert "3 runs since the last ralph reset" in text
    assert "run 1 ended (exit" in text and "run 2 ended (exit" in text
    assert text.count(ROW) == len(git_project.rotation_ends()) + 1  # every run's, the VERIFY's
    assert last.read_text().count(ROW) == 2  # the latest run alone: its DONE, its VERIFY
    # control: after a reset the earlier runs are no part of the job
    assert git_project.run("reset").exit_code == 0
    assert git_project.run("run", "--agent-command", done, "-n", "1").exit_code != 0
    assert git_project.run("report", "--html", str(job), "--job").exit_code == 0
    text = html.unescape(job.read_text())
    assert "1 run since the last ralph reset" in text and "run 1 ended" not in text
    assert text.count(ROW) == 1
    refused = git_project.run("report", "--html", str(job), "--job", "--run", "x")
    assert refused.exit_code == 2 and "--run and --job" in refused.stdout + refused.stderr


def test_lane_rotations_show_their_lane_in_the_html_report(
    git_project: Project, tmp_path: Path
) -> None:
    git_project.write({"specs/a.spec.md": "# a\n- [x] a\n", "specs/b.spec.md": "# b\n- [x] b\n"})
    git_project.git("add", "-A")
    git_project.git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "specs")
    done = git_project.script({"*": [{"signal": "DONE"}]})
    res = git_project.run("run", "--agent-command", done, "--parallel", "2", "-n", "2")
    assert res.exit_code in (0, 3), res
    listed = json.loads(git_project.run("history", "--json").stdout)["rotations"]
    lanes = {r["lane"] for r in listed if r.get("lane")}
    assert len(lanes) == 2, listed
    page = tmp_path / "run.html"
    assert git_project.run("report", "--html", str(page)).exit_code == 0
    text = page.read_text()
    for lane in lanes:
        assert f"<td>{html.escape(lane)}</td>" in text, lane
    assert "<td>main</td>" not in text
