"""process/orphans.py: orphans of an agent run."""

from __future__ import annotations

import os
import sys
import time

import psutil
import pytest


@pytest.mark.skipif(sys.platform == "win32", reason="fork")
def test_a_child_of_ralph_slow_to_exec_is_not_taken_for_a_hidden_orphan() -> None:
    """Between fork and exec a child of ralph's (a lane's git) has ralph's command line and
    environment and no mark; on a loaded machine that can last more than a second, and the
    child was killed as a hidden orphan (`git status` failed: -15)."""
    from ralph.process.orphans import _forked_by_ralph

    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the child: ralph's image, not yet exec'd; waits until told to go
        os.close(write)
        os.read(read, 1)
        os._exit(0)
    os.close(read)
    try:
        child = psutil.Process(pid)
        while time.time() - child.create_time() < 1.2:  # older than any age bound
            time.sleep(0.05)
        assert _forked_by_ralph(child)
    finally:
        os.write(write, b"x")
        os.close(write)
        os.waitpid(pid, 0)
