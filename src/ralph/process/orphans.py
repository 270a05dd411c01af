"""Orphans of an agent run: ralph as the child subreaper, finding them by a marker, reaping them."""

from __future__ import annotations

import os
import sys
import time

import psutil

from ralph.process import started, strays

# Every agent process tree carries this variable with a value unique to the run, so its
# orphans can be told apart from any other process (see Adopted).
MARKER = "RALPH_AGENT_RUN"
_PR_SET_CHILD_SUBREAPER = 36

_subreaper: bool | None = None


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


class Adopted:
    """Orphans of one agent run that were re-parented to ralph (the child subreaper)."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.active = subreaper()
        self.seen: set[int] = set()  # ours, so ours to reap once they are zombies
        self.noted: set[int] = set()  # hiding orphans already noted for the next run
        # Children ralph had before the agent started are someone else's to wait for.
        self.before = set(_direct_children()) if self.active else set()

    def find(self) -> list[psutil.Process]:
        if not self.active:
            return []
        found: list[psutil.Process] = []
        for child in self._orphans():
            try:
                if child.status() == psutil.STATUS_ZOMBIE:
                    self.seen.add(child.pid)  # an orphan that ended on its own: reaped below
                    continue
                if self._ours(child.environ()):
                    self.seen.add(child.pid)
                    found.append(child)
                    found.extend(child.children(recursive=True))
            except psutil.Error:
                continue
        return found

    def _orphans(self) -> list[psutil.Process]:
        """ralph's children that ralph did not start: every one is an orphan re-parented to
        it. Taken while no child of ralph's can start (process/started.py)."""
        with started.ours() as mine:
            pids = [p for p in _direct_children() if p not in self.before and p not in mine]
            found: list[psutil.Process] = []
            for pid in pids:
                try:
                    found.append(psutil.Process(pid))
                except psutil.Error:
                    continue
            return found

    def watch(self) -> None:
        """Note the orphans that hide (no mark at all) for the next run, while ralph lives: if
        ralph is killed with SIGKILL, nothing else could find them (process/strays.py)."""
        if not self.active:
            return
        for child in self._orphans():
            if child.pid in self.noted:
                continue
            try:
                if MARKER not in child.environ():
                    self.noted.add(child.pid)
                    strays.note(child.pid, child.create_time())
            except psutil.Error:
                continue

    def _ours(self, environ: dict[str, str]) -> bool:
        """This agent's orphan: it carries this run's token, or no mark at all (it cleared
        its environment). With lanes, such an orphan is stopped by whichever agent of the run
        ends first."""
        token = environ.get(MARKER)
        return token is None or token == self.token

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
