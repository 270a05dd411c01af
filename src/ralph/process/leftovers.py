"""What a run killed with SIGKILL left running, found by the run id every process it started
inherits (RALPH_RUN_ID), and stopped by the next run that takes over.

The id is recorded in run.json before any process starts, so however early ralph died (even
between starting the agent and noting its PID) the next run knows what to look for; and it
is found whatever the process did since: left the agent's process group, called setsid(),
was re-parented to init.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time

RUN_MARKER = "RALPH_RUN_ID"
# Rounds of look-and-kill: a process may fork between a look and the kill.
_ROUNDS = 8
# Bounded wait for the killed to be gone: something unkillable must not hang the next run.
_SETTLE = 2.0

_run_id: str | None = None


def mark_run(run_id: str | None) -> None:
    """Every process started from now on carries RALPH_RUN_ID=run_id (None: no mark)."""
    global _run_id  # noqa: PLW0603 -- one run per ralph process, like its run lock
    _run_id = run_id


def current_run() -> str | None:
    """The id this ralph process marks its processes with, if any."""
    return _run_id


def run_mark() -> dict[str, str]:
    """The variable the run's processes carry: added to each environment at its start."""
    return {} if _run_id is None else {RUN_MARKER: _run_id}


def left_by(run_id: str) -> list[tuple[int, str]]:
    """The processes still running that carry RALPH_RUN_ID=run_id (a dead run's, left behind):
    each pid and its command line, shortened; nothing is stopped."""
    if not run_id or run_id == _run_id:
        return []
    found = [pid for pid in _marked(f"{RUN_MARKER}={run_id}".encode()) if _running(pid)]
    return [(pid, _command(pid)) for pid in sorted(found) if pid != os.getpid()]


def _command(pid: int) -> str:
    import psutil

    try:
        words = psutil.Process(pid).cmdline()
    except psutil.Error:
        return "?"
    # a path by its name: the program and what it runs, not the folders it is in
    text = " ".join(w.rsplit("/", 1)[-1] if w.startswith("/") else w for w in words) or "?"
    return text if len(text) <= 80 else text[:79] + "…"


def stop_marked(run_id: str) -> list[int]:
    """SIGKILL every process carrying RALPH_RUN_ID=run_id; the pids found.

    Each round stops what it found before killing it (SIGSTOP, then SIGKILL), so a process
    cannot fork a new one between the two; the next round looks again for any it made before.
    """
    if not run_id or run_id == _run_id:
        return []  # never this run's own processes
    needle = f"{RUN_MARKER}={run_id}".encode()
    killed: set[int] = set()
    # Windows has neither SIGSTOP nor SIGKILL: os.kill() there terminates the process.
    signals = [getattr(signal, name, signal.SIGTERM) for name in ("SIGSTOP", "SIGKILL")]
    for _ in range(_ROUNDS):
        found = [pid for pid in _marked(needle) if pid != os.getpid()]
        if not found:
            break
        for sig in signals:
            for pid in found:
                _signal(pid, sig)
        killed.update(found)
    end = time.monotonic() + _SETTLE
    while time.monotonic() < end and any(_running(pid) for pid in killed):
        time.sleep(0.01)
    return sorted(killed)


def _signal(pid: int, sig: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.kill(pid, sig)


def _running(pid: int) -> bool:
    """Alive and not a zombie (a zombie is dead: its parent, maybe init, reaps it)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:  # noqa: PTH123 -- /proc, many at once
            return f.read().rsplit(b")", 1)[-1].split()[0] != b"Z"
    except (OSError, IndexError):
        return False if sys.platform.startswith("linux") else _psutil_running(pid)


def _psutil_running(pid: int) -> bool:
    import psutil

    try:
        return bool(psutil.Process(pid).status() != psutil.STATUS_ZOMBIE)
    except psutil.Error:
        return False


def _marked(needle: bytes) -> list[int]:
    """PIDs whose environment holds `needle` (NAME=value) as one whole entry."""
    if not sys.platform.startswith("linux"):
        return _marked_psutil(needle)
    entry = b"\0" + needle + b"\0"
    found: list[int] = []
    with os.scandir("/proc") as procs:
        for proc in procs:
            if not proc.name.isdigit():
                continue
            try:
                with open(f"/proc/{proc.name}/environ", "rb") as f:  # noqa: PTH123 -- /proc
                    environ = f.read()
            except OSError:  # gone, or not ours to read
                continue
            if entry in b"\0" + environ + b"\0":
                found.append(int(proc.name))
    return found


def _marked_psutil(needle: bytes) -> list[int]:
    """Elsewhere (macOS, BSD): psutil reads the environment of the user's own processes."""
    import psutil

    name, _, value = needle.decode().partition("=")
    found: list[int] = []
    for proc in psutil.process_iter():
        try:
            if proc.environ().get(name) == value:
                found.append(proc.pid)
        except psutil.Error:
            continue
    return found
