"""The real CLI on a pseudo-terminal, for the tests of what ralph asks a person: started with a
terminal's environment (not a CI job's, which would be headless), and read until a needle."""

from __future__ import annotations

import os
import select
import subprocess
import sys
import time
from pathlib import Path


def on_terminal(
    args: list[str], cwd: Path, columns: int = 100
) -> tuple[subprocess.Popen[bytes], int]:
    """`python -m ralph ARGS` with a pseudo-terminal as stdin, stdout and stderr; the process
    and the terminal's master end (the test writes the person's answers there)."""
    import pty

    master, slave = pty.openpty()
    env = {k: v for k, v in os.environ.items() if k != "CI"}  # a CI job's env would be headless
    env.update(TERM="xterm", COLUMNS=str(columns), LINES="40")
    proc = subprocess.Popen(
        [sys.executable, "-m", "ralph", *args],
        cwd=cwd,
        stdin=slave,
        stdout=slave,
        stderr=slave,
        env=env,
        close_fds=True,
    )
    os.close(slave)
    return proc, master


def read_until(fd: int, needle: bytes, seen: bytearray, timeout: float = 60) -> None:
    """Read the terminal into `seen` until `needle` is there; AssertionError when it never is."""
    deadline = time.monotonic() + timeout
    while needle not in seen:
        left = deadline - time.monotonic()
        if left <= 0:
            raise AssertionError(f"never saw {needle!r} in:\n{seen.decode(errors='replace')}")
        ready, _, _ = select.select([fd], [], [], min(left, 1.0))
        if ready:
            try:
                chunk = os.read(fd, 4096)
            except OSError:  # the child closed the terminal
                break
            if not chunk:
                break
            seen.extend(chunk)
