"""Run one agent process with bounded output, timeouts and a guaranteed kill of its whole tree."""

from __future__ import annotations

import contextlib
import os
import queue
import selectors
import signal
import subprocess
import sys
import threading
import time
import uuid
from collections import deque
from collections.abc import Callable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import IO, Any, Literal

import psutil

from ralph.errors import AgentError

StreamName = Literal["stdout", "stderr"]
OutputCallback = Callable[[StreamName, bytes], None]

_CHUNK = 64 * 1024
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
# Bounded waits after SIGKILL: for the kernel to tear processes down and for the pipes
# to reach EOF. Something unkillable (D state) must not hang ralph.
_KILL_SETTLE = 0.5
_REAP_TIMEOUT = 1.0
# Every agent process tree carries this variable with a value unique to the run, so its
# orphans can be told apart from any other process (see _Adopted).
MARKER = "RALPH_AGENT_RUN"
_PR_SET_CHILD_SUBREAPER = 36


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


_SUBREAPER: bool | None = None


class _Adopted:
    """Orphans of one agent run that were re-parented to ralph (the child subreaper)."""

    def __init__(self, token: str) -> None:
        self.token = token
        self.seen: set[int] = set()  # ours, so ours to reap once they are zombies
        # Children ralph had before the agent started are someone else's to wait for.
        self.before = set(_direct_children()) if _SUBREAPER else set()

    def find(self) -> list[psutil.Process]:
        if not _SUBREAPER:
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
                if child.environ().get(MARKER) == self.token:
                    self.seen.add(pid)
                    found.append(child)
                    found.extend(child.children(recursive=True))
            except psutil.Error:
                continue
        return found

    def reap(self, wait: float = 0.0) -> None:
        """Collect the exit status of adopted orphans, so no zombie of ours stays behind.

        Waits up to `wait` seconds for the ones just killed: on a loaded machine a SIGKILLed
        process can take a moment to become a zombie that waitpid() can collect.
        """
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


@dataclass(frozen=True)
class ProcessRequest:
    """What to run and the limits it runs under."""

    argv: tuple[str, ...]  # argv[0] already resolved to an absolute path by the caller
    cwd: Path
    env: Mapping[str, str]  # the complete environment: nothing is inherited implicitly
    stdin_path: Path | None = None  # fed to stdin (the prompt); None gives /dev/null
    timeout: float | None = None  # wall-clock seconds for the whole run
    idle_timeout: float | None = None  # seconds without a byte on stdout or stderr
    kill_grace: float = 5.0  # seconds between SIGTERM and SIGKILL
    tail_bytes: int = 1 << 20  # how much of the end of each stream to keep

    def __post_init__(self) -> None:
        if not self.argv:
            raise ValueError("ProcessRequest.argv is empty")
        if self.kill_grace < 0:
            raise ValueError("ProcessRequest.kill_grace must be >= 0")
        if self.tail_bytes < 0:
            raise ValueError("ProcessRequest.tail_bytes must be >= 0")


@dataclass(frozen=True)
class ProcessResult:
    """How the process ended and the end of what it printed."""

    # Popen's returncode when the process exited on its own (negative: killed by that
    # signal, not by ralph); None when ralph stopped it (timeout, idle, Ctrl-C, cancel).
    exit_code: int | None
    stdout_tail: bytes
    stderr_tail: bytes
    stdout_bytes: int
    stderr_bytes: int
    started: float  # wall clock, for logs and reports
    ended: float
    timed_out: bool
    idle_timed_out: bool
    interrupted: bool
    # Measured on the monotonic clock: a wall clock stepped while the agent ran (NTP, a VM
    # resumed) must not make a one-second rotation look like a long one, or a negative one.
    duration: float | None = None

    @property
    def elapsed(self) -> float:
        if self.duration is not None:
            return self.duration
        return max(0.0, self.ended - self.started)

    @property
    def ok(self) -> bool:
        killed = self.timed_out or self.idle_timed_out or self.interrupted
        return self.exit_code == 0 and not killed


def run_process(
    request: ProcessRequest,
    on_output: OutputCallback,
    cancel: threading.Event | None = None,
    on_start: Callable[[int], None] | None = None,
) -> ProcessResult:
    """Run `request` to completion or until a limit, Ctrl-C or `cancel` stops it.

    The process and everything it started are dead when this returns. A non-zero exit is
    reported, not raised; only a failure to start raises AgentError. KeyboardInterrupt is
    turned into `interrupted=True` so the caller can record the rotation before exiting.
    """
    global _SUBREAPER  # noqa: PLW0603 -- a process-wide setting, made once
    if _SUBREAPER is None:
        _SUBREAPER = _become_subreaper()
    token = uuid.uuid4().hex
    request = replace(request, env={**request.env, MARKER: token})
    started = time.time()
    clock = time.monotonic()
    # Taken before the spawn: an agent that forks an orphan at once would otherwise have it
    # counted among the children ralph already had, and never reaped.
    adopted = _Adopted(token)
    proc = _spawn(request)
    adopted.before.add(proc.pid)  # the agent itself is Popen's to wait for
    run = _Run(request, proc, on_output, adopted)
    failed = True
    try:
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
        run.stop()
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


def _spawn(request: ProcessRequest) -> subprocess.Popen[bytes]:
    program = request.argv[0]
    stdin: IO[bytes] | int = subprocess.DEVNULL
    if request.stdin_path is not None:
        try:
            stdin = request.stdin_path.open("rb")
        except OSError as exc:
            raise AgentError(
                f"cannot start agent: {program}: cannot read prompt file "
                f"{request.stdin_path}: {exc.strerror or exc}",
                "check that the prompt file exists and is readable",
            ) from exc
    # Own session and process group (on Windows: process group): Ctrl-C at the terminal does
    # not reach the agent (ralph decides how it stops) and killpg() reaches all it starts.
    isolation: dict[str, Any] = {"start_new_session": True}
    if sys.platform == "win32":
        isolation = {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    try:
        return subprocess.Popen(
            request.argv,
            cwd=request.cwd,
            env=dict(request.env),
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **isolation,
        )
    except OSError as exc:
        raise AgentError(
            f"cannot start agent: {program}: {_reason(exc, program)}",
            _hint(exc, request.cwd),
        ) from exc
    finally:
        # The child has its own copy of the descriptor.
        if not isinstance(stdin, int):
            stdin.close()


def _reason(exc: OSError, program: str) -> str:
    reason = exc.strerror or str(exc)
    # Popen names the working directory in the error when chdir() is what failed.
    if exc.filename is not None and str(exc.filename) != program:
        return f"{exc.filename}: {reason}"
    return reason


def _hint(exc: OSError, cwd: Path) -> str:
    if isinstance(exc, PermissionError):
        return "make the agent executable (chmod +x) or fix the agent command in ralph.yaml"
    if isinstance(exc, FileNotFoundError) and not cwd.is_dir():
        return f"the working directory {cwd} does not exist"
    if isinstance(exc, FileNotFoundError):
        return "install the agent CLI or fix the agent command in ralph.yaml"
    return "check the agent command in ralph.yaml"


class _Tail:
    """The last `limit` bytes of a stream and the total seen, in bounded memory."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self._chunks: deque[bytes] = deque()
        self._kept = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self._chunks.append(chunk)
        self._kept += len(chunk)
        # Drop whole chunks that lie entirely before the last `limit` bytes, so memory
        # stays below limit + one chunk however much the agent prints.
        while self._chunks and self._kept - len(self._chunks[0]) >= self.limit:
            self._kept -= len(self._chunks.popleft())

    def tail(self) -> bytes:
        if self.limit == 0:
            return b""
        return b"".join(self._chunks)[-self.limit :]


class _SelectorPipes:
    """Reads whichever pipe has data, never blocking on one while the other fills up."""

    def __init__(self, streams: Mapping[StreamName, IO[bytes]]) -> None:
        self._selector = selectors.DefaultSelector()
        for name, stream in streams.items():
            self._selector.register(stream.fileno(), selectors.EVENT_READ, name)

    @property
    def open(self) -> bool:
        return bool(self._selector.get_map())

    def read(self, timeout: float) -> list[tuple[StreamName, bytes]]:
        """Chunks that arrived within `timeout`; an empty chunk means that stream ended."""
        if not self.open:
            time.sleep(max(timeout, 0.0))
            return []
        got: list[tuple[StreamName, bytes]] = []
        for key, _ in self._selector.select(max(timeout, 0.0)):
            fd = key.fd
            try:
                chunk = os.read(fd, _CHUNK)
            except OSError:
                chunk = b""
            if not chunk:
                self._selector.unregister(fd)
            got.append((key.data, chunk))
        return got

    def close(self) -> None:
        self._selector.close()


class _ThreadPipes:
    """Windows fallback: selectors cannot wait on pipes there, so one thread per pipe."""

    def __init__(self, streams: Mapping[StreamName, IO[bytes]]) -> None:
        # Bounded, so a flood blocks the reader threads instead of filling memory.
        self._queue: queue.Queue[tuple[StreamName, bytes]] = queue.Queue(maxsize=16)
        self._open = set(streams)
        self._closed = threading.Event()
        for name, stream in streams.items():
            threading.Thread(target=self._pump, args=(name, stream), daemon=True).start()

    def _pump(self, name: StreamName, stream: IO[bytes]) -> None:
        while True:
            try:
                chunk = os.read(stream.fileno(), _CHUNK)
            except (OSError, ValueError):
                chunk = b""
            # Give up once closed: nobody empties a full queue then, and a blocked put
            # would keep this thread alive for good.
            while not self._closed.is_set():
                try:
                    self._queue.put((name, chunk), timeout=0.1)
                    break
                except queue.Full:
                    continue
            if not chunk or self._closed.is_set():
                return

    @property
    def open(self) -> bool:
        return bool(self._open)

    def read(self, timeout: float) -> list[tuple[StreamName, bytes]]:
        if not self.open:
            time.sleep(max(timeout, 0.0))
            return []
        got: list[tuple[StreamName, bytes]] = []
        try:
            got.append(self._queue.get(timeout=max(timeout, 0.0)))
            while len(got) < 16:
                got.append(self._queue.get_nowait())
        except queue.Empty:
            pass
        for name, chunk in got:
            if not chunk:
                self._open.discard(name)
        return got

    def close(self) -> None:
        self._open.clear()
        self._closed.set()


def _alive(process: psutil.Process) -> bool:
    # A zombie is dead for our purposes: orphans may never be reaped if PID 1 does not
    # reap (as in some containers), and a zombie cannot be killed anyway.
    try:
        return process.is_running() and process.status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


class _Tree:
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
        self._known = {pid: p for pid, p in self._known.items() if _alive(p)}
        for child in children:
            self._known.setdefault(child.pid, child)

    def victims(self) -> list[psutil.Process]:
        """Live processes to kill: known descendants plus whatever is left in the group."""
        found = {pid: p for pid, p in self._known.items() if _alive(p)}
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
            if os.getpgid(process.pid) == pgid and _alive(process):
                members.append(process)
        except OSError:
            continue
    return members


class _Run:
    """State of one running agent: its pipes, tails, descendants and why it stopped."""

    def __init__(
        self,
        request: ProcessRequest,
        proc: subprocess.Popen[bytes],
        on_output: OutputCallback,
        adopted: _Adopted,
    ) -> None:
        self.adopted = adopted
        self.request = request
        self.proc = proc
        self.on_output: OutputCallback | None = on_output
        self.tails: dict[StreamName, _Tail] = {
            "stdout": _Tail(request.tail_bytes),
            "stderr": _Tail(request.tail_bytes),
        }
        assert proc.stdout is not None and proc.stderr is not None
        streams: dict[StreamName, IO[bytes]] = {"stdout": proc.stdout, "stderr": proc.stderr}
        self.pipes: _SelectorPipes | _ThreadPipes = (
            _ThreadPipes(streams) if sys.platform == "win32" else _SelectorPipes(streams)
        )
        self.tree = _Tree(proc.pid)
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
            self._terminate(victims)
        finally:
            try:
                self._kill(victims)
                self._reap()
                self._final_drain()
            finally:
                self.pipes.close()
                for stream in (self.proc.stdout, self.proc.stderr):
                    if stream is not None:
                        stream.close()

    def _terminate(self, victims: list[psutil.Process]) -> None:
        """SIGTERM everything, then wait up to the grace (reading output) for it to exit.

        Fills `victims` in place so the SIGKILL that follows knows them even if this raises.
        """
        if self.proc.poll() is None:
            # A last look before the agent dies and its children are re-parented.
            self.tree.scan()
        victims.extend(self.tree.victims())
        known = {v.pid for v in victims}
        victims.extend(p for p in self.adopted.find() if p.pid not in known)
        if self.proc.poll() is not None and not victims:
            return  # clean exit, nothing left behind: the usual case
        self._signal(victims, kill=False)
        end = time.monotonic() + self.request.kill_grace
        try:
            while self.proc.poll() is None or any(_alive(v) for v in victims):
                remaining = end - time.monotonic()
                if remaining <= 0:
                    break
                # Keep reading: an agent writing its last words must not block on a full
                # pipe during the grace, and those words are worth keeping.
                self.pump(min(0.05, remaining))
        except KeyboardInterrupt:
            pass  # a second Ctrl-C skips the rest of the grace; SIGKILL follows

    def _kill(self, victims: list[psutil.Process]) -> None:
        # Looks at the group again rather than trusting _terminate(): it may have raised
        # before finding anything, and processes may have joined the group during the grace.
        victims = [v for v in victims if _alive(v)]
        if self.proc.poll() is not None and not victims and not _group_members(self.proc.pid):
            return
        self._signal(victims, kill=True)
        end = time.monotonic() + _KILL_SETTLE
        while any(_alive(v) for v in victims) and time.monotonic() < end:
            time.sleep(0.01)

    def _signal(self, victims: list[psutil.Process], *, kill: bool) -> None:
        if sys.platform != "win32":
            sig = signal.SIGKILL if kill else signal.SIGTERM
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.proc.pid, sig)
        if self.proc.poll() is None:
            # Popen (not the bare pid) knows whether the agent was already reaped.
            if kill:
                self.proc.kill()
            else:
                self.proc.terminate()
        for victim in victims:
            try:
                # psutil refuses to signal a pid that was recycled by another process.
                if kill:
                    victim.kill()
                else:
                    victim.terminate()
            except psutil.Error:
                pass

    def _reap(self) -> None:
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.proc.wait(_REAP_TIMEOUT)
        # An orphan that ended on its own since the last look is a zombie of ours by now.
        self.adopted.find()
        self.adopted.reap(_REAP_TIMEOUT)

    def _final_drain(self) -> None:
        end = time.monotonic() + _KILL_SETTLE
        try:
            while self.pipes.open:
                remaining = end - time.monotonic()
                if remaining <= 0:
                    return
                self.pump(min(0.05, remaining))
        except KeyboardInterrupt:
            self.interrupted = True
