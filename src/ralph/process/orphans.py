"""Orphans of an agent run: ralph as the child subreaper, finding them, stopping them.

Which of ralph's children is an orphan is ralph's own record (process/started.py: what it
started) and the session each child is in: every process ralph starts for a rotation gets a
session of its own, and no process can join a session it is not in, so a child of ralph's in
ralph's own session is its host's (a test, an embedding program), never an agent's orphan. A
rotation spares only an orphan that belongs to another rotation running now: one in that
rotation's session, or one carrying its mark (RALPH_AGENT_RUN: the agent's word, which can
only put the stop off to that rotation's end, never past it). A forged mark, no mark, or the
mark of a rotation that has ended is stopped at once, and the run's end stops every orphan
left (`sweep`).
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading
import time

import psutil

from ralph.process import started, strays

# Every agent process tree carries this variable with a value unique to its rotation.
MARKER = "RALPH_AGENT_RUN"
_PR_SET_CHILD_SUBREAPER = 36

_subreaper: bool | None = None
_lock = threading.Lock()
_running: dict[str, int] = {}  # each rotation under way: its mark -> its session
_ROUNDS = 8  # of look-and-kill as a run ends: an orphan may fork between a look and the kill


def subreaper() -> bool:
    """Whether ralph is the child subreaper; it becomes one (a process-wide setting) once."""
    global _subreaper  # noqa: PLW0603 -- a process-wide setting, made once
    if _subreaper is None:
        _subreaper = _become_subreaper()
    return _subreaper


def _become_subreaper() -> bool:
    """On Linux, make orphaned descendants re-parent to ralph instead of to init.

    A grandchild that calls setsid() and outlives an agent which exits at once is never seen
    by the periodic scan of the agent's tree; as ralph's child it can still be found.
    """
    if not sys.platform.startswith("linux"):
        return False
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return bool(libc.prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0)
    except (OSError, AttributeError):
        return False


def sweep(wait: float = 1.0) -> int:
    """As a run ends, no rotation under way: every orphan ralph still has is stopped and
    reaped, whatever it carries. Each round freezes what it found before killing it, so none
    can fork meanwhile; the next round looks for any it made before. How many there were."""
    if not _subreaper:
        return 0  # never a subreaper: nothing was adopted
    left, stopped = Adopted(""), set[int]()
    for _ in range(_ROUNDS):
        found = [p for p in left.find() if p.pid not in stopped]
        if not found:
            break
        for act in (psutil.Process.suspend, psutil.Process.kill):
            for process in found:
                with contextlib.suppress(psutil.Error):
                    act(process)
        stopped.update(p.pid for p in found)
    left.reap(wait)
    return len(stopped)


class Adopted:
    """Orphans of one rotation's process, re-parented to ralph (the child subreaper)."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.active = subreaper()
        self.seen: set[int] = set()  # ours, so ours to reap once they are zombies
        self.noted: set[int] = set()  # orphans already noted for the next run
        self.session: int | None = None  # its process's session, once it started
        self.host = _session(0) if self.active else 0  # ralph's own session

    def begin(self, pid: int) -> None:
        """Its process started (in a session of its own, `pid`): other rotations spare what
        belongs to it until `end`."""
        self.session = pid
        with _lock:
            _running[self.token] = pid

    def end(self) -> None:
        with _lock:
            _running.pop(self.token, None)

    def find(self) -> list[psutil.Process]:
        if not self.active:
            return []
        with _lock:
            others = {t: s for t, s in _running.items() if t != self.token}
        found: list[psutil.Process] = []
        for child in self._orphans():
            try:
                if child.status() == psutil.STATUS_ZOMBIE:
                    self.seen.add(child.pid)  # an orphan that ended on its own: reaped below
                    continue
                if self._ours(child, others):
                    self.seen.add(child.pid)
                    found.append(child)
                    found.extend(child.children(recursive=True))
            except (psutil.Error, OSError):
                continue
        return found

    def _orphans(self) -> list[psutil.Process]:
        """ralph's children that ralph did not start, outside its own session: every one is an
        orphan re-parented to it. Taken while no child of ralph's can start
        (process/started.py)."""
        with started.ours() as mine:
            found: list[psutil.Process] = []
            for pid in _direct_children():
                if pid in mine:
                    continue
                try:
                    if _session(pid) != self.host:
                        found.append(psutil.Process(pid))
                except (psutil.Error, OSError):
                    continue
            return found

    def watch(self) -> None:
        """Note each orphan for the next run, while ralph lives: if ralph is killed with
        SIGKILL, one that dropped the run's mark could be found no other way
        (process/strays.py)."""
        if not self.active:
            return
        for child in self._orphans():
            if child.pid in self.noted:
                continue
            try:
                self.noted.add(child.pid)
                strays.note(child.pid, child.create_time())
            except psutil.Error:
                continue

    def _ours(self, child: psutil.Process, others: dict[str, int]) -> bool:
        """This rotation's to stop: an orphan in its own session, or one that belongs to no
        other rotation running now (by that one's session, or by its mark)."""
        session = _session(child.pid)
        if session == self.session:
            return True
        if session in others.values():
            return False
        return child.environ().get(MARKER) not in others

    def reap(self, wait: float = 0.0) -> None:
        """Collect the exit status of adopted orphans, so no zombie of ours stays behind.

        Waits up to `wait` seconds for the ones just killed: on a loaded machine a SIGKILLed
        process can take a moment to become a zombie that waitpid() can collect.
        """
        if sys.platform == "win32":
            return  # nothing is adopted there: no subreaper, no zombies
        end = time.monotonic() + wait
        while True:
            for pid in list(self.seen):
                try:
                    done, _ = os.waitpid(pid, os.WNOHANG)
                except ChildProcessError:
                    done = pid
                if done:
                    self.seen.discard(pid)
            if not self.seen or time.monotonic() >= end:
                return
            time.sleep(0.01)


def _session(pid: int) -> int:
    """The session `pid` is in (0: ralph's own); OSError when it is gone."""
    if sys.platform == "win32":
        return 0  # no sessions there; nothing is adopted either
    return os.getsid(pid)


def _direct_children() -> list[int]:
    """PIDs of ralph's own children: cheap on Linux, a /proc scan elsewhere."""
    pids: list[int] = []
    try:
        # Closed explicitly: a thread ending mid-scan must not leave the iterator to the GC.
        with os.scandir("/proc/self/task") as tasks:
            for task in tasks:
                try:
                    with open(f"{task.path}/children") as f:  # noqa: PTH123 -- /proc, hot path
                        pids.extend(int(p) for p in f.read().split())
                except FileNotFoundError:  # that thread has just ended (a watcher, a pool)
                    continue
    except OSError:
        return [c.pid for c in psutil.Process().children()]
    return pids
