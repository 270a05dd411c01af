"""Every process an agent starts is stopped however it detaches and whatever it does to its
environment: a daemon that double-forks, calls setsid(), clears its environment and re-execs
(tests/fakes/vanisher.py), or forges a rotation's mark of its own, through the real CLI, with
and without bubblewrap."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from tests.conftest import Project
from tests.e2e.test_sandbox_run import need

VANISHER = Path(__file__).parents[1] / "fakes" / "vanisher.py"
SANDBOXES = ["none", "bwrap"]
# how the daemon hides: no mark at all, or a RALPH_AGENT_RUN of its own making
MARKS = {"cleared": (), "forged": ("--forge",)}


@pytest.fixture
def disk_project(monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    """A project on disk outside /tmp (bwrap gives the sandbox a /tmp of its own)."""
    base = "/var/tmp" if Path("/var/tmp").is_dir() else None
    where = Path(tempfile.mkdtemp(prefix="ralph-test-", dir=base))
    project = Project(where / "proj", monkeypatch)
    project.root.mkdir()
    project.git("init", "-q")
    project.write({"specs/a.spec.md": "# A\n\nDo it.\n"})
    yield project
    shutil.rmtree(where, ignore_errors=True)


@pytest.fixture
def tag() -> Iterator[str]:
    name = f"ralph-vanisher-{os.getpid()}-{time.monotonic_ns()}"
    yield name
    for pid in tagged(name):  # never leave one behind, whatever the test found
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)


def tagged(tag: str) -> list[int]:
    found = []
    for proc in psutil.process_iter(["cmdline", "status"]):
        try:
            if tag in (proc.info["cmdline"] or []) and proc.info["status"] != "zombie":
                found.append(proc.pid)
        except psutil.Error:
            continue
    return found


def gone(tag: str, within: float = 30.0) -> bool:
    end = time.monotonic() + within
    while time.monotonic() < end:
        if not tagged(tag):
            return True
        time.sleep(0.1)
    return False


def box_args(sandbox: str) -> tuple[str, ...]:
    return ("--sandbox", sandbox) if sandbox != "none" else ()


@pytest.mark.parametrize("mark", MARKS)
@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_daemon_that_clears_its_environment_is_stopped_at_the_end_of_the_rotation(
    sandbox: str, mark: str, disk_project: Project, tag: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sandbox != "none":
        need(sandbox, monkeypatch)
    command = " ".join((sys.executable, str(VANISHER), tag, *MARKS[mark]))
    result = disk_project.run_subprocess(
        "run", *box_args(sandbox), "--agent-command", command, "-n", "1", "--headless"
    )
    assert result.exit_code == 3, result
    assert "daemon started" in (disk_project.root / ".ralph" / "current.log").read_text()
    assert gone(tag), f"the daemon outlived the rotation: {tagged(tag)}"


@pytest.mark.parametrize("mark", MARKS)
@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_daemon_that_clears_its_environment_is_stopped_after_ralph_is_killed(
    sandbox: str, mark: str, disk_project: Project, tag: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sandbox != "none":
        need(sandbox, monkeypatch)
    command = " ".join((sys.executable, str(VANISHER), tag, "--stay", *MARKS[mark]))
    ralph = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "ralph",
            "run",
            *box_args(sandbox),
            "--agent-command",
            command,
            "-n",
            "1",
            "--headless",
        ],
        cwd=disk_project.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        end = time.monotonic() + 30
        while not tagged(tag) and time.monotonic() < end:
            time.sleep(0.1)
        assert tagged(tag), "the daemon never started"
        time.sleep(1.0)  # ralph has looked at its children since
    finally:
        ralph.kill()
        ralph.wait(30)
    # the next run (or, in a sandbox, the kernel at once) stops it
    again = disk_project.run_subprocess(
        "run",
        *box_args(sandbox),
        "--agent-command",
        f"{sys.executable} -c pass",
        "-n",
        "1",
        "--headless",
    )
    assert again.exit_code in (3, 1), again
    assert gone(tag), f"the daemon outlived ralph and the next run: {tagged(tag)}"
