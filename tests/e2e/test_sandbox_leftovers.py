"""`kill -9` of a sandboxed run cannot remove its sandbox folder (its TMPDIR, srt's rules and
sockets under /tmp): the next start does, found by the run's record in ralph's private store,
never by a name in a file the agent could write."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pytest

from tests.conftest import Project
from tests.e2e.test_sandbox_run import box_project, disk_tmp, need

__all__ = ["box_project", "disk_tmp"]  # the fixtures, shared

pytestmark = [pytest.mark.slow]

# Says where its sandbox folder is, then waits to be killed with the run.
STAY = """\
import os, pathlib, time
pathlib.Path("scratch.txt").write_text(os.environ["TMPDIR"])
pathlib.Path("started").write_text("yes")
time.sleep(600)
"""


def wait_for(path: Path, proc: subprocess.Popen[bytes], bound: float = 300) -> None:
    """Until `path` exists (the event); fails if the run ended first or the bound passed."""
    end = time.monotonic() + bound
    while not path.exists():
        assert proc.poll() is None, "the run ended before its agent started"
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.05)


@pytest.mark.parametrize("profile", ["bwrap", "srt"])
def test_the_next_start_removes_the_sandbox_folder_of_a_run_killed_with_sigkill(
    profile: str, box_project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    need(profile, monkeypatch)
    root = box_project.root
    agent = disk_tmp / "stay.py"
    agent.write_text(STAY)
    run = [sys.executable, "-m", "ralph", "run", "--sandbox", profile, "--headless", "-n", "1"]
    proc = subprocess.Popen(
        [*run, "--agent-command", f"{sys.executable} {agent}"],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    # another folder of the same shape, recorded nowhere: another run's, and one that
    # .ralph/run.json (the agent's to write) names
    decoy = Path(tempfile.mkdtemp(prefix="ralph-sandbox-", dir="/tmp"))
    try:
        wait_for(root / "started", proc)
        scratch = Path((root / "scratch.txt").read_text()).parent
        assert scratch.name.startswith("ralph-sandbox-") and scratch.is_dir()
        proc.kill()
        proc.wait(timeout=60)
        assert scratch.is_dir()  # the killed run could not remove it
        forged = json.loads((root / ".ralph" / "run.json").read_text())
        (root / ".ralph" / "run.json").write_text(json.dumps({**forged, "sandbox": str(decoy)}))
        done = disk_tmp / "continue.sh"
        done.write_text("#!/bin/sh\necho '<ralph>CONTINUE</ralph>'\n")
        done.chmod(0o755)
        again = box_project.run_subprocess(
            "run", "--sandbox", "off", "--agent-command", str(done), "-n", "1", "--headless"
        )
        assert again.exit_code == 3, again
        assert not scratch.exists()  # the next start removed it
        assert decoy.is_dir()  # and nothing its record does not name
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=60)
        shutil.rmtree(decoy, ignore_errors=True)
