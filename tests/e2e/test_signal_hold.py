"""A hold keeps Ctrl-C and the stop signals that arrive while a process cannot be stopped yet
(just started, no supervisor) and acts on them when released; the agent never outlives it."""

from __future__ import annotations

import os
import shutil
import sys
from pathlib import Path

import psutil
import pytest

from ralph.process.request import OPEN, ProcessRequest
from ralph.process.runner import run_process

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals to oneself")


def test_ctrl_c_as_the_process_starts_still_stops_its_tree(tmp_path: Path) -> None:
    # The child interrupts ralph the instant it runs: on a busy machine, before ralph has a
    # supervisor for it. Held, then acted on where the tree is stopped: nothing survives.
    pidfile = tmp_path / "pid"
    sh = shutil.which("sh")
    assert sh is not None
    request = ProcessRequest(
        argv=(sh, "-c", f"echo $$ > {pidfile}; kill -INT $PPID; exec sleep 60"),
        cwd=tmp_path,
        env=dict(os.environ),
        timeout=30.0,
        kill_grace=1.0,
        tail_bytes=1024,
        confined=OPEN,
    )
    for _ in range(5):
        result = run_process(request, lambda stream, chunk: None)
        assert result.interrupted
        assert not _alive(int(pidfile.read_text()))


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
