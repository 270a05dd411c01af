"""The live run as another command sees it: whether a run holds the project's lock (a probe that
takes it for an instant when it is free), and what its run.json says.

`ralph status` reads it on every call: nothing here imports the lock library on Linux and macOS
(a flock probe answers), and store/live/runlock.py, which takes the lock, is not imported.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph.errors import StateError
from ralph.store.disk.files import load_json
from ralph.store.disk.private import store_dir

if TYPE_CHECKING:
    from filelock import BaseFileLock

LOCK_FILE = "run.lock"
RUN_FILE = "run.json"


def os_lock(path: Path) -> BaseFileLock:
    from filelock import FileLock

    # Not thread-local: the run may release it from another thread than the one that took it.
    return FileLock(path, thread_local=False)


@dataclass(frozen=True)
class RunInfo:
    pid: int
    started_at: float
    data: dict[str, Any]


def read_run(state_dir: Path) -> RunInfo | None:
    """run.json of the live run, or None when no run is live (stale files are ignored): ralph's
    own copy in the store, never `.ralph/run.json` (written for people, forgeable by the agent)."""
    if not is_live(state_dir):
        return None
    try:
        data = load_json(store_dir(state_dir.parent) / RUN_FILE, f"ralph's copy of {RUN_FILE}")
    except StateError:  # a damaged run.json must not break `status`
        data = None
    if not isinstance(data, dict):
        return RunInfo(pid=0, started_at=0.0, data={})
    return RunInfo(int(data.get("pid", 0)), float(data.get("started_at", 0.0)), data)


def lock_file(state_dir: Path) -> Path:
    """The run lock of the project whose `.ralph/` is `state_dir`: in its private store."""
    return store_dir(state_dir.parent) / LOCK_FILE


def is_live(state_dir: Path) -> bool:
    """Whether a run holds the lock: a probe that takes it for an instant when it is free."""
    lock_path = lock_file(state_dir)
    if sys.platform == "win32":
        return lock_path.exists() and _filelock_held(lock_path)
    return _flock_held(lock_path) or _flock_held(state_dir.parent)


def _flock_held(path: Path) -> bool:
    # filelock's lock on Linux and macOS is flock(2); a shared, non-blocking probe of it
    # answers without importing the library, which `ralph status` cannot afford (~10 ms).
    if sys.platform == "win32":
        return False  # no flock there: is_live asks filelock itself
    import fcntl

    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return False
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    except OSError:
        return False
    else:
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    finally:
        os.close(fd)


def _filelock_held(lock_path: Path) -> bool:
    """The probe through filelock itself: Windows' (the library's own lock calls there)."""
    from filelock import Timeout

    probe = os_lock(lock_path)
    try:
        probe.acquire(timeout=0)
    except Timeout:
        return True
    except OSError:
        return False  # an unreadable lock file keeps no run out either
    probe.release()
    return False
