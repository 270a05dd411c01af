"""An agent's process tree: every descendant seen so far, and its kill (SIGTERM, then SIGKILL).

On Windows there are no signals to send: the soft stop is a Ctrl-Break to the agent's process
group, the hard one TerminateProcess on the agent and on every descendant seen (psutil)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import time
from collections.abc import Callable

import psutil

from ralph.process.orphans import Adopted

# Bounded waits after SIGKILL: for the kernel to tear processes down and for the pipes
# to reach EOF. Something unkillable (D state) must not hang ralph.
KILL_SETTLE = 0.5


def started_at(pid: int) -> float:
    """When `pid` started (now, if it is already gone): with the pid, it names one process for
    a later run that takes over, even once the pid is reused."""
    try:
        return float(psutil.Process(pid).create_time())
    except psutil.Error:
        return time.time()


def alive(process: psutil.Process) -> bool:
    # A zombie is dead for our purposes: orphans may never be reaped if PID 1 does not
    # reap (as in some containers), and a zombie cannot be killed anyway.
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


class Tree:
    """Every descendant of the agent seen so far, including ones that left its group."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self._known: dict[int, psutil.Process] = {}
        try:
            self._root: psutil.Process | None = psutil.Process(pid)
        except psutil.Error:
            self._root = None

    def scan(self) -> None:
        """Remember the current descendants; only meaningful while the agent is alive."""
        if self._root is None:
            return
        try:
            children = self._root.children(recursive=True)
        except psutil.Error:
            return
        # Forget the dead so an agent that runs thousands of short commands costs nothing.
        self._known = {pid: p for pid, p in self._known.items() if alive(p)}
        for child in children:
            self._known.setdefault(child.pid, child)

    def victims(self) -> list[psutil.Process]:
        """Live processes to kill: known descendants plus whatever is left in the group."""
        found = {pid: p for pid, p in self._known.items() if alive(p)}
        for member in _group_members(self.pid):
            found.setdefault(member.pid, member)
        found.pop(self.pid, None)  # the agent itself is handled through Popen
        return list(found.values())


def _group_members(pgid: int) -> list[psutil.Process]:
    if sys.platform == "win32":
        return []
    try:
        os.killpg(pgid, 0)
    except (ProcessLookupError, PermissionError):
        return []  # the common case after a clean exit: nothing left, no scan needed
    members: list[psutil.Process] = []
    for process in psutil.process_iter():
        try:
            if os.getpgid(process.pid) == pgid and alive(process):
                members.append(process)
        except OSError:
            continue
    return members


def terminate(
    proc: subprocess.Popen[bytes],
    tree: Tree,
    adopted: Adopted,
    grace: float,
    pump: Callable[[float], None],
    victims: list[psutil.Process],
) -> None:
    """SIGTERM everything, then wait up to `grace` (reading output with `pump`) for it to exit.

    Fills `victims` in place so the SIGKILL that follows knows them even if this raises.
    """
    if proc.poll() is None:
        # A last look before the agent dies and its children are re-parented.
        tree.scan()
    victims.extend(tree.victims())
    known = {v.pid for v in victims}
    victims.extend(p for p in adopted.find() if p.pid not in known)
    if proc.poll() is not None and not victims:
        return  # clean exit, nothing left behind: the usual case
    _signal(proc, victims, kill=False)
    end = time.monotonic() + grace
    try:
        while proc.poll() is None or any(alive(v) for v in victims):
            remaining = end - time.monotonic()
            if remaining <= 0:
                break
            # Keep reading: an agent writing its last words must not block on a full
            # pipe during the grace, and those words are worth keeping.
            pump(min(0.05, remaining))
    except KeyboardInterrupt:
        pass  # a second Ctrl-C skips the rest of the grace; SIGKILL follows


def kill(proc: subprocess.Popen[bytes], victims: list[psutil.Process]) -> None:
    """SIGKILL what is left of the tree and wait a moment for it to die."""
    # Looks at the group again rather than trusting terminate(): it may have raised
    # before finding anything, and processes may have joined the group during the grace.
    victims = [v for v in victims if alive(v)]
    if proc.poll() is not None and not victims and not _group_members(proc.pid):
        return
    _signal(proc, victims, kill=True)
    end = time.monotonic() + KILL_SETTLE
    while any(alive(v) for v in victims) and time.monotonic() < end:
        time.sleep(0.01)


def _signal(proc: subprocess.Popen[bytes], victims: list[psutil.Process], *, kill: bool) -> None:
    if sys.platform == "win32":
        if not kill and _break_group(proc):
            return  # the group got its Ctrl-Break; kill() ends whatever outlives the grace
    else:
        sig = signal.SIGKILL if kill else signal.SIGTERM
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, sig)
    if proc.poll() is None:
        # Popen (not the bare pid) knows whether the agent was already reaped.
        if kill:
            proc.kill()
        else:
            proc.terminate()
    for victim in victims:
        try:
            # psutil refuses to signal a pid that was recycled by another process.
            if kill:
                victim.kill()
            else:
                victim.terminate()
        except psutil.Error:
            pass


def _break_group(proc: subprocess.Popen[bytes]) -> bool:
    """Windows: Ctrl-Break to the agent's process group (spawn made one), the closest thing
    to SIGTERM there: terminate() is TerminateProcess, which would leave no grace at all.
    False when it cannot be sent (the agent gone, or ralph without a console to share)."""
    if sys.platform != "win32":
        return False  # not called there: SIGTERM to the group does this
    if proc.poll() is not None:
        return False
    try:
        os.kill(proc.pid, signal.CTRL_BREAK_EVENT)
    except OSError:
        return False
    return True
