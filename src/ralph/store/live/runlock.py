"""One run per project: an OS lock on `run.lock` in the private store plus `.ralph/run.json`
for humans.

The lock file is in the store (store/disk/private.py), out of the agent's reach: deleting a lock
file lets the next locker create a new one and take it beside the live run. Where the agent can
reach the store too (no sandbox), a second lock on the project folder itself still holds: a
folder in use cannot be deleted away from under the run (flock on Linux and macOS).

The lock is what decides: the OS releases it when the process dies, however it dies, so a
run.json left by a killed run (its PID dead) is simply taken over by the next run. The lock is
the `filelock` library's (flock on Linux and macOS, a byte-range lock on Windows), taken by
`ralph run`; `status` only probes it (store/live/liverun.py).
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
import time
from pathlib import Path
from types import TracebackType
from typing import TYPE_CHECKING, Any

from ralph.errors import LockError, RalphError, StateError
from ralph.store.disk.files import load_json, make_dirs, remove_file, write_json_atomic
from ralph.store.disk.private import (
    drop_legacy,
    ensure_store,
    lost_store,
    restore_state,
    store_dir,
)
from ralph.store.live.liverun import LOCK_FILE, RUN_FILE, os_lock

if TYPE_CHECKING:
    from filelock import BaseFileLock

# How long a starting run waits for the lock: a `ralph status` probing it at that moment
# holds it for a few microseconds and must not be taken for a live run.
ACQUIRE_WAIT = 1.0


def load_json_quietly(path: Path) -> Any:
    try:
        return load_json(path, path.name)
    except StateError:
        return None


def _reap_leftovers(previous: Any, state_dir: Path) -> list[int]:
    """A run killed with SIGKILL could not stop its agent: stop what is left of it now.

    Every process that run started carries its run id (recorded before the first start), so
    each one is found wherever it went; the process group below is for a run.json from an
    older ralph, which recorded no run id.
    """
    if isinstance(previous, dict) and isinstance(previous.get("run_id"), str):
        from ralph.process.leftovers import stop_marked

        return stop_marked(previous["run_id"])
    return _reap_leftover_group(previous, state_dir)


def _reap_leftover_group(previous: Any, state_dir: Path) -> list[int]:
    """The agent leads its own process group. Only processes of that group, started no earlier
    than the recorded agent and carrying this project's RALPH_STATE_DIR in their environment,
    are killed, so a recycled PID never hits a stranger.
    """
    if not isinstance(previous, dict) or sys.platform == "win32":
        return []  # no process groups there; the run's own kill of the tree is what stops it
    pgid, started = previous.get("agent_pid"), previous.get("agent_started")
    if not isinstance(pgid, int) or not isinstance(started, (int, float)) or pgid <= 1:
        return []
    import psutil

    killed: list[int] = []
    ours = str(state_dir.resolve())
    for proc in psutil.process_iter(["pid", "create_time"]):
        try:
            if os.getpgid(proc.pid) != pgid or proc.info["create_time"] < started - 1:
                continue
            if proc.environ().get("RALPH_STATE_DIR") == ours:
                proc.kill()
                killed.append(proc.pid)
        except (OSError, psutil.Error):
            continue
    return killed


class RunLock:
    """Held for the whole of `ralph run`; `update` keeps run.json current."""

    def __init__(self, state_dir: Path, **info: Any) -> None:
        # Here, not at the top: `ralph status` reads run.json through this module.
        from ralph.process.leftovers import current_run

        self.state_dir = state_dir
        # A lock taken inside a run that already marks its processes shares that run's id.
        import uuid  # here: `ralph status` reads the lock without it (uuid loads platform)

        self.run_id = current_run() or uuid.uuid4().hex
        self._said: str | None = None  # run.json as last written (its JSON)
        self.info: dict[str, Any] = {
            "pid": os.getpid(),
            "started_at": time.time(),
            "run_id": self.run_id,
            **info,
        }
        self._lock: BaseFileLock | None = None
        self._folder_fd: int | None = None
        self._marking = False
        self.notes: list[str] = []  # what taking the project found and put right, one line each

    def __enter__(self) -> RunLock:
        if self.state_dir.exists() and not self.state_dir.is_dir():
            raise StateError(
                f"{self.state_dir.name} is a file, not a folder",
                f"move the file away; ralph keeps its state in the folder {self.state_dir.name}/",
            )
        make_dirs(self.state_dir)
        from filelock import Timeout

        root = self.state_dir.parent
        lost = lost_store(root)  # asked before ensure_store makes an empty one
        lock = os_lock(ensure_store(root) / LOCK_FILE)
        try:
            lock.acquire(timeout=ACQUIRE_WAIT)
        except Timeout:
            raise self._refused() from None
        self._lock = lock
        try:
            self._folder_fd = _lock_folder(root)
        except BlockingIOError:
            lock.release()
            self._lock = None
            raise self._refused() from None
        from ralph.store.repository.checkout import claim

        replaced = claim(root)  # a store of an earlier checkout at this path: set aside
        if replaced is not None:
            self.notes.append(replaced)
        dropped = drop_legacy(root)
        if dropped is not None:
            self.notes.append(dropped)
        if lost is not None:
            self.notes.append(lost)
        restored = restore_state(root)
        if restored:
            self.notes.append(restored)
        # What a killed run left to stop is read from the store's copy: a run.json the agent
        # forged in .ralph/ must not name the processes ralph kills.
        own = store_dir(root) / RUN_FILE
        previous = load_json_quietly(own)
        stopped = _reap_leftovers(previous, self.state_dir)
        if isinstance(previous, dict):  # and the sandbox folder it could not remove
            from ralph.process.containment import remove_left

            remove_left(previous.get("sandbox"))
        from ralph.process import strays

        # noted in the store too: a note the agent forged in .ralph/ would name a process
        # of the user's for ralph to kill
        stopped += strays.stop_noted(self._strays)  # hid from the run id
        from ralph.store.live.takeover import taken_over

        taken = taken_over(previous, sorted(set(stopped)), root)
        if taken is not None:
            self.notes.append(taken)
        # Written before any process starts: a run killed at any later moment, even between
        # starting its agent and noting the PID, leaves the next run what it needs to find it.
        self._write()
        from ralph.process.leftovers import current_run, mark_run

        if current_run() is None:
            mark_run(self.run_id)
            strays.note_to(self._strays)
            self._marking = True
        return self

    def _refused(self) -> LockError:
        try:  # the live run's own copy, never `.ralph/run.json` (the agent's to forge)
            other = load_json(store_dir(self.state_dir.parent) / RUN_FILE, RUN_FILE)
        except StateError:
            other = None
        who = ""
        if isinstance(other, dict):
            since = time.strftime("%H:%M:%S", time.localtime(float(other.get("started_at", 0))))
            who = f" (pid {other.get('pid')}, since {since}"
            who += f", on {other['current_spec']})" if other.get("current_spec") else ")"
        return LockError(
            f"another ralph run is live in this project{who}",
            "wait for it to finish (ralph inspect --follow shows it), or stop it from here: "
            "ralph cancel (after the current rotation) or ralph cancel --now",
        )

    def record_agent(self, pid: int) -> None:
        """Note the running agent, so that a run taking over after a crash can stop it."""
        from ralph.process.tree import started_at  # psutil: not on `ralph status`'s path

        self.update(agent_pid=pid, agent_started=started_at(pid))

    def update(self, **info: Any) -> None:
        """Best effort: run.json informs humans and `status`; a failed write must not stop
        a run (the lock, not this file, is what keeps a second run out). News it already
        holds are not written again (the pool's, after every rotation)."""
        self.info.update(info)
        # by what was written, never by the values held: a caller's dict (the lanes' news)
        # may have changed in place since
        said = json.dumps(self.info, sort_keys=True, default=str)
        if said == self._said:
            return
        self._said = said
        with contextlib.suppress(OSError):
            self._write()

    @property
    def _strays(self) -> Path:
        """Where this run notes its strays (process/strays.py): in the store, not `.ralph/`."""
        from ralph.process.strays import STRAYS_FILE

        return store_dir(self.state_dir.parent) / STRAYS_FILE

    def _write(self) -> None:
        """run.json for humans in .ralph/, and ralph's own copy in the store."""
        write_json_atomic(store_dir(self.state_dir.parent) / RUN_FILE, self.info, durable=False)
        write_json_atomic(self.state_dir / RUN_FILE, self.info, durable=False)

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._marking:
            from ralph.process import strays
            from ralph.process.leftovers import mark_run

            mark_run(None)
            strays.note_to(None)
            with contextlib.suppress(OSError):  # each was stopped with its rotation
                self._strays.unlink(missing_ok=True)
            self._marking = False
        with contextlib.suppress(OSError, RalphError):  # a link there: left alone
            remove_file(self.state_dir / RUN_FILE)
        with contextlib.suppress(OSError):
            (store_dir(self.state_dir.parent) / RUN_FILE).unlink(missing_ok=True)
        if self._folder_fd is not None:
            os.close(self._folder_fd)  # closing it releases the flock
            self._folder_fd = None
        if self._lock is not None:
            self._lock.release()
            self._lock = None


def _lock_folder(root: Path) -> int | None:
    """An exclusive flock on the project folder itself (Linux, macOS); None where there is none.
    BlockingIOError when another run holds it: its lock file was deleted away."""
    if sys.platform == "win32":
        return None  # a folder cannot be opened for locking there; the store's lock decides
    import fcntl

    fd = os.open(root, os.O_RDONLY)
    deadline = time.monotonic() + ACQUIRE_WAIT  # a `status` probing it holds it an instant
    try:
        while True:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                return fd
            except BlockingIOError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.02)
    except BaseException:
        os.close(fd)
        raise
