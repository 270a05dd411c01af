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


class _Seen:
    """A child as /proc shows it at one instant: its command line and environment."""

    def __init__(self, cmdline: list[str], environ: dict[str, str]) -> None:
        self._cmdline, self._environ = cmdline, environ

    def cmdline(self) -> list[str]:
        return self._cmdline

    def environ(self) -> dict[str, str]:
        return self._environ

    def create_time(self) -> float:
        return time.time() - 60.0  # old: no age bound decides


def test_a_child_caught_mid_exec_is_ralph_s_and_a_hidden_orphan_is_not() -> None:
    """Inside execve, once the new program's memory is in place and before its arguments and
    environment are laid out, /proc reads both as empty: a lane's git or another lane's check
    seen then was killed as a hidden orphan (-15). An orphan that cleared its environment
    (`env -i`) still shows its command line: it stays a hidden orphan to reap."""
    from ralph.process.orphans import _forked_by_ralph

    assert _forked_by_ralph(_Seen([], {}))  # type: ignore[arg-type]
    assert not _forked_by_ralph(_Seen(["sleep", "60"], {}))  # type: ignore[arg-type]
