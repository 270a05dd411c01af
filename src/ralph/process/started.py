"""The processes ralph itself started and has not yet reaped: how ralph's own child is told
from an orphan an agent left behind (re-parented to ralph, process/orphans.py) without asking
the child. A child's command line and environment are its own to forge (an orphan can copy
ralph's), and both read empty while it execs; whether ralph started it is ralph's own record.

Process-wide, as the children are: whichever thread starts one (a lane's git, another lane's
agent), it is recorded under the lock a scan of ralph's children holds, so a scan never sees a
child that is started but not yet recorded."""

from __future__ import annotations

import subprocess
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

_lock = threading.Lock()
_live: dict[int, subprocess.Popen[bytes]] = {}


def popen(argv: Sequence[str], **options: Any) -> subprocess.Popen[bytes]:
    """`subprocess.Popen(argv, **options)`, recorded as ralph's until it is reaped."""
    with _lock:
        proc: subprocess.Popen[bytes] = subprocess.Popen(argv, **options)
        _live[proc.pid] = proc
    return proc


def run(
    argv: Sequence[str], *, timeout: float | None = None, **options: Any
) -> subprocess.CompletedProcess[bytes]:
    """`subprocess.run(argv, capture_output=True, timeout=timeout, **options)`, recorded: its
    output captured, the process killed and reaped when the timeout (or Ctrl-C) ends the wait."""
    with popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, **options) as proc:
        try:
            out, err = proc.communicate(timeout=timeout)
        except BaseException:
            proc.kill()
            proc.wait()
            raise
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


@contextmanager
def ours() -> Iterator[frozenset[int]]:
    """The PIDs of ralph's children it started and has not reaped; no child starts until the
    block ends. A reaped child's PID is dropped: the system may give it to another process."""
    with _lock:
        for pid in [pid for pid, proc in _live.items() if proc.returncode is not None]:
            del _live[pid]
        yield frozenset(_live)
