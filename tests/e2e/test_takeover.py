"""A run killed with kill -9 leaves nothing running once the next run takes over: not the
agent, not a daemon it started (setsid), not a child in a process group of its own, however
early ralph was killed (even before it noted the agent's PID)."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from ralph.process.leftovers import RUN_MARKER
from tests.conftest import Project

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="kill -9, setsid"),
]

ESCAPER = Path(__file__).parents[1] / "fakes" / "escaper.py"


def start_run(project: Project, cmd: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", "--agent-command", cmd, "-n", "1", "--headless"],
        cwd=project.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def wait_for(predicate: object, timeout: float = 20.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.02)
    raise AssertionError("condition not met in time")


def running(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False


def pids(out: Path) -> list[int]:
    return [int((out / name).read_text()) for name in ("daemon.pid", "group.pid")]


def take_over(project: Project) -> None:
    done = project.script({"*": [{"signal": "DONE"}]})
    res = project.run_subprocess("run", "--agent-command", done, "-n", "1")
    assert res.exit_code in (0, 3), res


def escaped(project: Project) -> list[psutil.Process]:
    """Processes still carrying this project's state folder in their environment."""
    ours = str((project.root / ".ralph").resolve())
    found = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get("RALPH_STATE_DIR") == ours and running(proc.pid):
                found.append(proc)
        except psutil.Error:
            continue
    return found


def kill_all(project: Project, found: list[int]) -> None:
    """Whatever a test left: the pids it found and any process of the project's runs."""
    for pid in [*found, *(p.pid for p in escaped(project))]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def test_the_issue_reproduction_leaves_no_sleep_behind(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    proc = start_run(git_project, "sh -c 'setsid sleep 301 & sleep 300'")
    try:
        wait_for(lambda: len(escaped(git_project)) >= 3)  # sh, sleep 300, sleep 301
        survivors = [p.pid for p in escaped(git_project)]
        proc.kill()
        proc.wait(10)
        assert all(running(pid) for pid in survivors)  # nobody was left to stop them
        take_over(git_project)
        assert [p.cmdline() for p in escaped(git_project)] == []
    finally:
        proc.kill()
        proc.wait()
        kill_all(git_project, [])


def test_escaped_children_of_a_killed_run_are_stopped_by_the_next(
    git_project: Project, tmp_path: Path
) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    out = tmp_path / "out"
    out.mkdir()
    proc = start_run(git_project, f"{sys.executable} {ESCAPER} {out}")
    found: list[int] = []
    try:
        wait_for(lambda: (out / "daemon.pid").exists() and (out / "group.pid").exists())
        found = pids(out)
        proc.kill()
        proc.wait(10)
        assert all(running(pid) for pid in found)
        take_over(git_project)
        assert [pid for pid in found if running(pid)] == []
    finally:
        proc.kill()
        proc.wait()
        kill_all(git_project, found)


def test_ralph_killed_before_it_notes_the_agent_still_has_it_stopped(
    git_project: Project, tmp_path: Path
) -> None:
    # The agent kills ralph as its first act: ralph dies right after starting it, before or
    # while noting its PID. run.json is then put back as ralph left it before the note, so the
    # next run cannot rely on the PID: only what was recorded before the start.
    git_project.write({"PROMPT.md": "# goal\n"})
    out = tmp_path / "out"
    out.mkdir()
    proc = start_run(git_project, f"{sys.executable} {ESCAPER} {out} kill-ralph")
    found: list[int] = []
    try:
        assert proc.wait(30) == -signal.SIGKILL
        wait_for(lambda: (out / "daemon.pid").exists() and (out / "group.pid").exists())
        found = pids(out)
        run_json = git_project.store / "run.json"  # the copy a takeover reads
        info = json.loads(run_json.read_text())
        info.pop("agent_pid", None)
        info.pop("agent_started", None)
        run_json.write_text(json.dumps(info))
        agent = [p.pid for p in escaped(git_project) if p.pid not in found]
        assert agent and all(running(pid) for pid in found + agent)
        take_over(git_project)
        assert [pid for pid in found + agent if running(pid)] == []
    finally:
        proc.kill()
        proc.wait()
        kill_all(git_project, found)


@pytest.mark.parametrize("delay", [0.3, 0.6, 0.9, 1.2])
def test_kill_9_at_any_moment_of_the_start_leaves_nothing_after_a_takeover(
    git_project: Project, tmp_path: Path, delay: float
) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    out = tmp_path / "out"
    out.mkdir()
    proc = start_run(git_project, f"{sys.executable} {ESCAPER} {out}")
    leftover: list[int] = []
    try:
        time.sleep(delay)
        proc.kill()
        proc.wait(10)
        time.sleep(0.3)  # whatever the agent was about to start has started
        leftover = [p.pid for p in escaped(git_project)]
        take_over(git_project)
        assert [p.cmdline() for p in escaped(git_project)] == []
    finally:
        proc.kill()
        proc.wait()
        kill_all(git_project, leftover)


def test_every_process_of_a_run_carries_its_recorded_run_id(
    git_project: Project, tmp_path: Path
) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    out = tmp_path / "out"
    out.mkdir()
    proc = start_run(git_project, f"{sys.executable} {ESCAPER} {out}")
    found: list[int] = []
    try:
        wait_for(lambda: (out / "daemon.pid").exists() and (out / "group.pid").exists())
        found = pids(out)
        run_id = json.loads((git_project.root / ".ralph" / "run.json").read_text())["run_id"]
        for pid in found:
            assert psutil.Process(pid).environ()[RUN_MARKER] == run_id
    finally:
        proc.kill()
        proc.wait()
        kill_all(git_project, found)


def test_status_after_a_kill_never_shows_the_run_before_as_the_last(git_project: Project) -> None:
    """A killed run records no totals: `ralph status` says so rather than give the run
    before it as the "last run" (the user who just killed it would read the wrong figures)."""
    git_project.write({"PROMPT.md": "# goal\n"})
    take_over(git_project)  # a run that ends: its totals are recorded
    assert "last run: 1 rotation" in git_project.run("status").stdout
    proc = start_run(git_project, "sh -c 'sleep 300'")
    try:
        wait_for(lambda: len(escaped(git_project)) >= 2)  # the agent runs: the run started
        proc.kill()
        proc.wait(10)
        said = git_project.run("status").stdout
        assert "last run: ended without a record (killed?)" in said, said
        assert "the run before it: 1 rotation" in said and "last run: 1 rotation" not in said
        assert "`ralph run --continue` takes it over" in said
        git_project.run("reset")  # a reset begins a new job: nothing left to continue
        said = git_project.run("status").stdout
        assert "last run: ended without a record (killed?)" in said, said
        assert "--continue" not in said, said
        take_over(git_project)  # the control: a run that ends is the last run again
        said = git_project.run("status").stdout
        assert "last run: 1 rotation" in said and "killed" not in said, said
    finally:
        proc.kill()
        proc.wait()
        kill_all(git_project, [])
