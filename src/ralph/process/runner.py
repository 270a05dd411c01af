"""Run one agent process with bounded output, timeouts and a guaranteed kill of its whole tree."""

from __future__ import annotations

import contextlib
import subprocess
import threading
import time
import uuid
from collections.abc import Callable
from dataclasses import replace
from typing import IO

import psutil

from ralph.process import containment, tree
from ralph.process.leftovers import run_mark
from ralph.process.orphans import MARKER, Adopted
from ralph.process.pipes import Tail, open_pipes
from ralph.process.request import OutputCallback, ProcessRequest, ProcessResult, StreamName
from ralph.process.signals import Hold
from ralph.process.spawn import spawn

# The loop wakes at least this often, so a cancel event is seen within 0.2 s.
_POLL_STEP = 0.1
# Descendants are looked up early (a forking agent usually forks at once) and then
# periodically: a grandchild that calls setsid() leaves our process group, and once its
# parent dies it is re-parented and can no longer be found from the agent's pid.
_FIRST_SCAN = 0.1
_SCAN_INTERVAL = 0.5
# After the agent exits, a grandchild may still hold the pipes open; read what is left
# for this long at most before killing it, so run_process never waits on it.
_DRAIN_AFTER_EXIT = 1.0
# Bounded wait for the agent to be reaped after SIGKILL.
_REAP_TIMEOUT = 1.0


def run_process(
    request: ProcessRequest,
    on_output: OutputCallback,
    cancel: threading.Event | None = None,
    on_start: Callable[[int], None] | None = None,
) -> ProcessResult:
    """Run `request` to completion or until a limit, Ctrl-C or `cancel` stops it.

    The process and everything it started are dead when this returns. A non-zero exit is
    reported, not raised; only a failure to start raises StartError. KeyboardInterrupt is
    turned into `interrupted=True` so the caller can record the rotation before exiting.
    """
    token = uuid.uuid4().hex
    # MARKER tells this process's orphans apart while ralph lives; the run's mark finds them
    # after ralph itself was killed (see leftovers.py).
    marks = {**run_mark(), MARKER: token}  # handed on whatever the run's rules: ralph's own
    request = replace(request, env={**request.env, **marks}, passes=request.passes | set(marks))
    started = time.time()
    clock = time.monotonic()
    # Made before the spawn: ralph becomes the subreaper before an agent can fork an orphan.
    adopted = Adopted(token)
    box, allow = request.confined.box, request.confined.allow
    # From the start until a supervisor holds the process, Ctrl-C would leave it running:
    # a Ctrl-C meanwhile is held, and acted on inside the try below, which stops the tree.
    hold = Hold()
    try:
        proc = spawn(request, box, token, allow)
        run = _Supervisor(request, proc, on_output, adopted)
        adopted.begin(proc.pid)  # its session: other rotations spare what is in it
    except BaseException:
        hold.release()  # a Ctrl-C that came meanwhile is what the caller hears of
        raise
    failed = True
    try:
        hold.release()
        if on_start is not None:  # e.g. record the agent's PID, so a later run can reap it
            on_start(proc.pid)
        run.supervise(cancel)
        failed = False
    except KeyboardInterrupt:
        run.interrupted = True
        failed = False
    finally:
        if failed:
            # on_output itself may be what raised: do not call it again while cleaning up.
            run.on_output = None
        try:
            run.stop()
        finally:
            adopted.end()
            containment.release(box, token)
    return ProcessResult(
        exit_code=run.exit_code,
        stdout_tail=run.tails["stdout"].tail(),
        stderr_tail=run.tails["stderr"].tail(),
        stdout_bytes=run.tails["stdout"].total,
        stderr_bytes=run.tails["stderr"].total,
        started=started,
        ended=time.time(),
        duration=time.monotonic() - clock,
        timed_out=run.timed_out,
        idle_timed_out=run.idle_timed_out,
        interrupted=run.interrupted,
    )


class _Supervisor:
    """State of one running agent: its pipes, tails, descendants and why it stopped."""

    def __init__(
        self,
        request: ProcessRequest,
        proc: subprocess.Popen[bytes],
        on_output: OutputCallback,
        adopted: Adopted,
    ) -> None:
        self.adopted = adopted
        self.request = request
        self.proc = proc
        self.on_output: OutputCallback | None = on_output
        self.tails: dict[StreamName, Tail] = {
            "stdout": Tail(request.tail_bytes),
            "stderr": Tail(request.tail_bytes),
        }
        assert proc.stdout is not None and proc.stderr is not None
        streams: dict[StreamName, IO[bytes]] = {"stdout": proc.stdout, "stderr": proc.stderr}
        self.pipes = open_pipes(streams)
        self.tree = tree.Tree(proc.pid)
        self.start = time.monotonic()
        self.last_output = self.start
        self.exit_code: int | None = None
        self.timed_out = False
        self.idle_timed_out = False
        self.interrupted = False

    def pump(self, timeout: float) -> None:
        for name, chunk in self.pipes.read(timeout):
            if not chunk:
                continue
            self.last_output = time.monotonic()
            self.tails[name].add(chunk)
            if self.on_output is not None:
                self.on_output(name, chunk)

    def supervise(self, cancel: threading.Event | None) -> None:
        """Forward output until the agent exits or a limit or cancel says to stop it."""
        request = self.request
        deadline = None if request.timeout is None else self.start + request.timeout
        next_scan = self.start + _FIRST_SCAN
        while True:
            code = self.proc.poll()
            # Checked first: an agent that exited on its own was not killed, whatever the clock.
            if code is not None:
                self.exit_code = code
                self._drain_after_exit(cancel)
                return
            now = time.monotonic()
            if cancel is not None and cancel.is_set():
                self.interrupted = True
                return
            if deadline is not None and now >= deadline:
                self.timed_out = True
                return
            idle_deadline = None
            if request.idle_timeout is not None:
                idle_deadline = self.last_output + request.idle_timeout
                if now >= idle_deadline:
                    self.idle_timed_out = True
                    return
            if now >= next_scan:
                self.tree.scan()
                self.adopted.watch()
                next_scan = time.monotonic() + _SCAN_INTERVAL
            step = _POLL_STEP
            for limit in (deadline, idle_deadline):
                if limit is not None:
                    step = min(step, limit - now)
            if self.pipes.open:
                self.pump(step)
            else:
                # The agent closed both pipes but runs on: wait on the process instead.
                with contextlib.suppress(subprocess.TimeoutExpired):
                    self.proc.wait(max(step, 0.0))

    def _drain_after_exit(self, cancel: threading.Event | None) -> None:
        end = time.monotonic() + _DRAIN_AFTER_EXIT
        try:
            while self.pipes.open:
                now = time.monotonic()
                if now >= end:
                    return
                if cancel is not None and cancel.is_set():
                    self.interrupted = True
                    return
                self.pump(min(_POLL_STEP, end - now))
        except KeyboardInterrupt:
            # The exit code stays: the agent finished; the user still wants out.
            self.interrupted = True

    def stop(self) -> None:
        """Kill whatever is left of the tree, reap the agent, read the last bytes, close."""
        victims: list[psutil.Process] = []
        try:
            tree.terminate(
                self.proc, self.tree, self.adopted, self.request.kill_grace, self.pump, victims
            )
        finally:
            try:
                tree.kill(self.proc, victims)
                self._reap()
                self._final_drain()
            finally:
                self.pipes.close()
                for stream in (self.proc.stdout, self.proc.stderr):
                    if stream is not None:
                        stream.close()

    def _reap(self) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(_REAP_TIMEOUT)
        # An orphan that ended on its own since the last look is a zombie of ours by now.
        self.adopted.find()
        self.adopted.reap(_REAP_TIMEOUT)

    def _final_drain(self) -> None:
        end = time.monotonic() + tree.KILL_SETTLE
        try:
            while self.pipes.open:
                remaining = end - time.monotonic()
                if remaining <= 0:
                    return
                self.pump(min(0.05, remaining))
        except KeyboardInterrupt:
            self.interrupted = True
