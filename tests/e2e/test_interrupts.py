"""Ctrl-C and kill -9 at any moment: the state stays consistent and no agent survives."""

from __future__ import annotations

import hashlib
import json
import signal
import subprocess
import sys
import time
from typing import Any

import psutil
import pytest

from tests.conftest import Project
from tests.platforms import posix_groups, posix_signals

pytestmark = pytest.mark.slow


def start_run(project: Project, cmd: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", "--agent-command", cmd, *args],
        cwd=project.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(predicate: object, timeout: float = 15.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():  # type: ignore[operator]
            return
        time.sleep(0.02)
    raise AssertionError("condition not met in time")


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@posix_groups
def test_kill_9_mid_rotation_keeps_state_before_it_and_next_run_reaps_the_agent(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    cmd = git_project.script(
        {
            "PROMPT.md": [
                {"write": {"a.txt": "1"}, "signal": "DONE"},
                {"write": {"b.txt": "half-done"}, "sleep": 60, "signal": "DONE"},
                {"signal": "DONE"},
            ]
        }
    )
    proc = start_run(git_project, cmd)
    try:
        wait_for(lambda: len(git_project.calls()) == 2 and (git_project.root / "b.txt").exists())
        run = json.loads((git_project.root / ".ralph/run.json").read_text())
        agent_pid = run["agent_pid"]
        assert not gone(agent_pid)
        proc.kill()  # SIGKILL: ralph cannot clean up anything
        proc.wait(10)
    finally:
        proc.kill()
        proc.communicate()
    state = git_project.state()
    assert state["iteration"] == 2  # the rotation number was taken...
    assert state["specs"][0]["done_count"] == 1  # ...but its result never recorded
    assert state["specs"][0]["rotations"] == 1
    assert not list((git_project.root / ".ralph").glob("*.tmp"))
    assert not gone(agent_pid)  # nobody was left to stop it

    done = git_project.script({"*": [{"signal": "DONE"}]})
    res = git_project.run_subprocess("run", "--agent-command", done)
    assert res.exit_code == 0, res
    assert gone(agent_pid)  # the next run stopped the orphaned agent
    # numbering went on after the lost rotation: 3 and 4, then the final verification
    assert git_project.state()["iteration"] == 5


@posix_signals
def test_ctrl_c_records_the_rotation_as_error_with_its_changes(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n", "specs/b.spec.md": "b\n"})
    git_project.write(
        {
            ".ralph/state.json": json.dumps(
                {
                    "schema_version": 1,
                    "iteration": 5,
                    "specs": [
                        {
                            "path": "PROMPT.md",
                            "done_count": 0,
                            "last_status": "CONTINUE",
                            "last_hash": "x",
                        },
                        {
                            "path": "specs/b.spec.md",
                            "done_count": 3,
                            "last_status": "DONE",
                            "last_hash": hashlib.sha256(b"b\n").hexdigest(),
                        },
                    ],
                }
            )
        }
    )
    cmd = git_project.script({"*": [{"write": {"w.txt": "partial"}, "sleep": 60}]})
    proc = start_run(git_project, cmd)
    try:
        wait_for((git_project.root / "w.txt").exists)
        agent_pid = json.loads((git_project.root / ".ralph/run.json").read_text())["agent_pid"]
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert gone(agent_pid)
    spec = {s["path"]: s for s in git_project.state()["specs"]}
    assert spec["PROMPT.md"]["last_status"] == "ERROR"
    assert spec["PROMPT.md"]["modified_files"] is True
    # the rotation's changes still count: the verified spec drops to 2/3
    assert spec["specs/b.spec.md"]["done_count"] == 2
    assert not (git_project.root / ".ralph/run.json").exists()


@posix_signals
# By name: Windows has no SIGKILL, and the module must still import there to skip it.
@pytest.mark.parametrize("sig_name", ["SIGKILL", "SIGINT"])
def test_interrupt_at_any_moment_leaves_a_loadable_state(
    git_project: Project, sig_name: str
) -> None:
    sig = getattr(signal, sig_name)
    git_project.write({"PROMPT.md": "# goal\n", "specs/a.spec.md": "a\n", "specs/b.spec.md": "b\n"})
    steps: list[dict[str, Any]] = [
        {"write": {"f.txt": "1"}, "signal": "CONTINUE"},
        {"write": {"f.txt": "2"}, "signal": "DONE"},
        {"signal": "DONE"},
    ]
    cmd = git_project.script({"*": steps})
    delays = [0.05, 0.15, 0.3, 0.45, 0.6, 0.8, 1.0]
    for delay in delays:
        proc = start_run(git_project, cmd)
        time.sleep(delay)
        proc.send_signal(sig)
        try:
            out, err = proc.communicate(timeout=20)
        finally:
            proc.kill()
        # -SIGINT: the signal came before Python had even installed its handler; 1 with
        # "Could not import runpy module" or "Failed to import the site module": it came while the
        # interpreter itself was starting (a loaded machine), before any of ralph ran.
        before_ralph = proc.returncode == 1 and (
            "Could not import runpy module" in err or "Failed to import the site module" in err
        )
        assert before_ralph or proc.returncode in (0, 130, -signal.SIGKILL, -signal.SIGINT), (
            delay,
            out,
            err,
        )
        status = git_project.run("status", "--json")  # the same code, without a process
        assert status.exit_code == 0, status  # never half-written, never refused
        data = json.loads(status.stdout)
        assert all(0 <= s["done_count"] <= 3 for s in data["specs"])
        if sig == signal.SIGINT:  # Python cleans up on Ctrl-C; SIGKILL leaves no chance
            assert not list((git_project.root / ".ralph").glob(".*.tmp"))
    final = git_project.run_subprocess("run", "--agent-command", cmd, "-n", "30")
    assert final.exit_code == 0, final
    assert set(git_project.counts().values()) == {3}
    assert not list((git_project.root / ".ralph").glob(".*.tmp"))  # leftovers swept
