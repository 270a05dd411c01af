"""Lanes survive ralph being killed: kill -9 during a lane's rotation or during a merge, then
`ralph run` again goes on with the same lanes and loses no work; Ctrl-C stops every lane."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ralph.rules.counts.lanes import lane_name
from ralph.store.live.lanes import lanes_file
from ralph.store.repository.worktrees import lane_path
from tests.conftest import Project
from tests.e2e.test_lanes import branches, lanes_project, worktrees

pytestmark = pytest.mark.slow

TWO = {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"}


def start(project: Project, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", "--headless", *args],
        cwd=project.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_for(check: object, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.05)
    raise AssertionError("timed out")


def started(project: Project, spec: str, n: int = 1) -> bool:
    return sum(1 for c in project.calls() if c["spec"] == spec) >= n


def wrote(project: Project, spec: str, name: str) -> bool:
    """The spec's agent has written `name` in its lane (an event to wait on, not a guess)."""
    return any(c["spec"] == spec and (Path(c["cwd"]) / name).exists() for c in project.calls())


def test_kill_9_during_a_lane_rotation_then_resume(project: Project) -> None:
    lanes_project(project, TWO)
    steps = {
        "specs/a.spec.md": [{"write": {"a.txt": "a\n"}, "signal": "DONE"}, {"signal": "DONE"}],
        "specs/b.spec.md": [
            {"write": {"b.txt": "b\n"}, "sleep": 60, "signal": "DONE"},
            {"signal": "DONE"},
        ],
    }
    cmd = project.script(steps)
    proc = start(project, "--agent-command", cmd, "--parallel", "2")
    try:
        wait_for(lambda: started(project, "specs/b.spec.md"))
        wait_for((project.root / ".ralph" / "worktrees").is_dir)
        wait_for(lambda: wrote(project, "specs/b.spec.md", "b.txt"))  # and now sleeps
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    lanes = json.loads(lanes_file(project.root).read_text())
    assert any(lane["spec"] == "specs/b.spec.md" for lane in lanes["lanes"])
    res = project.run_subprocess("run", "--agent-command", cmd, "--parallel", "2", "--headless")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert (project.root / "b.txt").read_text() == "b\n"  # the killed rotation's work merged
    assert (project.root / "a.txt").read_text() == "a\n"
    assert project.counts() == dict.fromkeys(TWO, 3)
    assert branches(project) == ["main"]
    assert len(worktrees(project)) == 1


def test_kill_9_during_a_merge_then_resume(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    lanes_project(project, TWO)
    # ralph's git runs no hook: a git on PATH that pauses after a merge (a person's own tool)
    real = subprocess.run(["which", "git"], capture_output=True, text=True, check=True)
    marker = project.root.parent / "merging"
    slow = project.root.parent / "slowgit"
    slow.mkdir()
    wrapper = slow / "git"
    wrapper.write_text(
        f'#!/bin/sh\n{real.stdout.strip()} "$@" || exit $?\n'
        f'case " $* " in *" merge --no-edit "*) touch {marker}; sleep 60;; esac\n'
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{slow}:{os.environ['PATH']}")
    steps = {
        "specs/a.spec.md": [{"write": {"a.txt": "a\n"}, "signal": "DONE"}, {"signal": "DONE"}],
        "specs/b.spec.md": [{"write": {"b.txt": "b\n"}, "signal": "DONE"}, {"signal": "DONE"}],
    }
    cmd = project.script(steps)
    proc = start(project, "--agent-command", cmd, "--parallel", "2")
    try:
        wait_for(marker.exists)  # the first merge is done in git, not yet recorded by ralph
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.communicate(timeout=30)
    lanes = json.loads(lanes_file(project.root).read_text())
    assert lanes["merging"] in TWO
    monkeypatch.setenv("PATH", os.environ["PATH"].split(":", 1)[1])
    res = project.run_subprocess("run", "--agent-command", cmd, "--parallel", "2", "--headless")
    assert res.exit_code == 0, res.stdout + res.stderr
    assert (project.root / "a.txt").read_text() == "a\n"
    assert (project.root / "b.txt").read_text() == "b\n"
    assert project.counts() == dict.fromkeys(TWO, 3)
    assert branches(project) == ["main"]
    assert json.loads(lanes_file(project.root).read_text())["merging"] is None


def test_a_half_done_merge_is_aborted_and_redone(project: Project) -> None:
    lanes_project(project, TWO)
    steps = {
        "specs/a.spec.md": [{"write": {"a.txt": "a\n"}, "signal": "DONE"}, {"signal": "DONE"}],
        # unfinished (CONTINUE): b's work stays in its lane, not merged yet
        "specs/b.spec.md": [{"write": {"b.txt": "b\n"}, "signal": "CONTINUE"}, {"signal": "STUCK"}],
    }
    cmd = project.script(steps)
    res = project.run("run", "--agent-command", cmd, "--parallel", "2", "--headless", "-n", "3")
    assert res.exit_code in (3, 5), res.stdout + res.stderr
    lane = next(b for b in branches(project) if b.startswith("ralph/b-"))
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    # b's unfinished work, committed in its lane by hand (ralph commits only counted work)
    worktree = str(lane_path(project.root, lane_name("specs/b.spec.md")))
    subprocess.run([*git, "-C", worktree, "add", "b.txt"], check=True)
    subprocess.run([*git, "-C", worktree, "commit", "-qm", "b's work"], check=True)
    # what a kill between git's merge and its abort leaves: a merge in progress, recorded
    (project.root / "b.txt").write_text("in the way\n")
    project.git("add", "b.txt")
    project.git("commit", "-qm", "b.txt on main too")
    subprocess.run([*git, "merge", lane], cwd=project.root, capture_output=True, check=False)
    assert (project.root / ".git" / "MERGE_HEAD").exists()
    path = lanes_file(project.root)
    data = json.loads(path.read_text())
    data["merging"] = "specs/b.spec.md"
    path.write_text(json.dumps(data))
    steps["specs/b.spec.md"] = [{"signal": "STUCK"}]
    cmd = project.script(steps)
    res = project.run("run", "--agent-command", cmd, "--parallel", "2", "--headless", "-n", "2")
    assert "was cut short: aborted" in res.stdout, res.stdout + res.stderr
    assert not (project.root / ".git" / "MERGE_HEAD").exists()
    assert project.git("show", f"{lane}:b.txt") == "b\n"  # the lane's commit is still there


def test_ctrl_c_stops_every_lane_and_keeps_their_work(project: Project) -> None:
    lanes_project(project, TWO)
    steps = {
        "specs/a.spec.md": [{"write": {"a.txt": "a\n"}, "sleep": 60, "signal": "DONE"}],
        "specs/b.spec.md": [{"write": {"b.txt": "b\n"}, "sleep": 60, "signal": "DONE"}],
    }
    proc = start(project, "--agent-command", project.script(steps), "--parallel", "2")
    try:
        wait_for(lambda: wrote(project, "specs/a.spec.md", "a.txt"))
        wait_for(lambda: wrote(project, "specs/b.spec.md", "b.txt"))  # both agents now sleep
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, out + err
    ends = project.rotation_ends()
    assert sorted(e["spec"] for e in ends) == sorted(TWO)
    assert all(e["signal"] == "ERROR" for e in ends)
    for name in ("a", "b"):  # each lane's work kept in its worktree (not counted: uncommitted)
        worktree = lane_path(project.root, lane_name(f"specs/{name}.spec.md"))
        assert (worktree / f"{name}.txt").read_text() == f"{name}\n"
    assert "lane kept (its spec not verified)" in out
    assert not any(Path(c["cwd"]).name == "proj" for c in project.calls())
    assert any((project.root / ".ralph" / "worktrees").iterdir())


def test_inspect_and_cancel_know_about_lanes(project: Project) -> None:
    lanes_project(project, TWO)
    steps = {
        "specs/a.spec.md": [{"write": {"a.txt": "a\n"}, "sleep": 60, "signal": "DONE"}],
        "specs/b.spec.md": [{"write": {"b.txt": "b\n"}, "sleep": 60, "signal": "DONE"}],
    }
    proc = start(project, "--agent-command", project.script(steps), "--parallel", "2")
    try:
        wait_for(
            lambda: started(project, "specs/a.spec.md") and started(project, "specs/b.spec.md")
        )

        def both_listed() -> bool:
            data = json.loads(project.run("inspect", "--json").stdout)
            return len(data.get("lanes", [])) == 2 and all(x["agent_pid"] for x in data["lanes"])

        wait_for(both_listed)
        text = project.run("inspect").stdout
        assert "lane specs/a.spec.md: rotation" in text and "lane specs/b.spec.md" in text
        res = project.run("cancel", "--now")
        assert res.exit_code == 0, res
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, out + err
    assert "cancelled now" in out
    assert len(project.rotation_ends()) == 2
