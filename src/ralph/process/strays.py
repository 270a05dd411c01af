"""Orphans that cleared their environment (no RALPH_RUN_ID left to find them by): noted while
ralph lives, as ralph's adopted children (process/orphans.py), so that the next run stops them
if ralph itself was killed with SIGKILL before it could.

A note names a process by its PID and start time: a PID reused since by another process is
never touched. A stray is stopped only if it is the user's own and no helper of ralph's.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import sys
import threading
from pathlib import Path

STRAYS_FILE = "strays.jsonl"
_TOLERANCE = 0.05  # seconds: a start time read twice may differ by rounding

_lock = threading.Lock()
_path: Path | None = None
_noted: set[int] = set()


def note_to(path: Path | None) -> None:
    """Where this run notes its strays (None: it does not)."""
    global _path  # noqa: PLW0603 -- one run per ralph process, like its run mark
    with _lock:
        _path = path
        _noted.clear()


def note(pid: int, started: float) -> None:
    """Remember a stray for the next run; best effort (a full disk must not stop this one)."""
    with _lock:
        if _path is None or pid in _noted:
            return
        _noted.add(pid)
        line = json.dumps({"pid": pid, "started": started}) + "\n"
        flags = os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_NOFOLLOW", 0)
        with contextlib.suppress(OSError):
            fd = os.open(_path, flags, 0o600)
            try:
                os.write(fd, line.encode())
            finally:
                os.close(fd)


def stop_noted(path: Path) -> list[int]:
    """SIGKILL every noted stray still running (and what it started); the pids found."""
    if sys.platform == "win32":
        return []  # strays are noted on Linux only (the subreaper); nothing to stop here
    import psutil

    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError):
        return []
    found: list[psutil.Process] = []
    for line in lines:
        try:
            entry = json.loads(line)
            proc = psutil.Process(int(entry["pid"]))
            same = abs(proc.create_time() - float(entry["started"])) < _TOLERANCE
            if same and proc.uids().real == os.getuid():
                found += [proc, *proc.children(recursive=True)]
        except (ValueError, KeyError, TypeError, psutil.Error, OSError):
            continue
    for sig in (
        getattr(signal, "SIGSTOP", signal.SIGTERM),
        getattr(signal, "SIGKILL", signal.SIGTERM),
    ):
        for proc in found:
            with contextlib.suppress(psutil.Error):
                proc.send_signal(sig)
    with contextlib.suppress(OSError):
        path.unlink()
    return sorted({proc.pid for proc in found})
