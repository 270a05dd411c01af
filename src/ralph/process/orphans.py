"""Orphans of an agent run: ralph as the child subreaper, finding them by a marker, reaping them."""

from __future__ import annotations

import os
import sys
import time

import psutil

from ralph.process import strays
from ralph.process.capture import HELPER

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
        for pid in _direct_children():
            if pid in self.before:
                continue
            try:
                child = psutil.Process(pid)
                if child.status() == psutil.STATUS_ZOMBIE:
                    self.seen.add(pid)  # an orphan that ended on its own: reaped below
                    continue
                if not _forked_by_ralph(child) and self._ours(child.environ()):
                    self.seen.add(pid)
                    found.append(child)
                    found.extend(child.children(recursive=True))
            except psutil.Error:
                continue
        return found

    def watch(self) -> None:
        """Note the orphans that hide (no mark at all) for the next run, while ralph lives: if
        ralph is killed with SIGKILL, nothing else could find them (process/strays.py)."""
        if not self.active:
            return
        for pid in _direct_children():
            if pid in self.before or pid in self.noted:
                continue
            try:
                child = psutil.Process(pid)
                environ = child.environ()
                if _forked_by_ralph(child):
                    continue
                if MARKER not in environ and HELPER not in environ:
                    self.noted.add(pid)
                    strays.note(pid, child.create_time())
            except psutil.Error:
                continue

    def _ours(self, environ: dict[str, str]) -> bool:
        """This agent's orphan: it carries this run's token, or no mark at all (it cleared
        its environment: only an orphan of an agent can be ralph's child without one). With
        lanes, such an orphan is stopped by whichever agent of the run ends first."""
        token = environ.get(MARKER)
        return token == self.token or (token is None and HELPER not in environ)

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


def _forked_by_ralph(child: psutil.Process) -> bool:
    """A child ralph is starting this instant (a lane's git, another lane's agent): between
    fork and exec it still has ralph's own command line and environment, so it carries no mark
    yet; taken for a hidden orphan, it was killed (seen as `git status` failing with -15).
    On a loaded machine that gap can outlast any age bound, so the environment decides: a
    process with ralph's command line and ralph's very environment is ralph's; a young one
    with ralph's command line too (its environment may not be readable yet)."""
    try:
        me = psutil.Process()
        cmdline = child.cmdline()
        if not cmdline and not child.environ():
            # Mid-exec: the new program's arguments and environment are not laid out yet (a
            # lane's git, another lane's check, on a loaded machine); it had no mark to read,
            # and was killed (seen as `git` or a test command ending with -15). An orphan that
            # cleared its environment still has its command line.
            return True
        if cmdline != me.cmdline():
            return False
        if time.time() - child.create_time() < 1.0:
            return True
        return child.environ() == me.environ()
    except psutil.Error:
        return False
