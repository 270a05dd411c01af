"""What a process runs under and how it ended: the values `run_process` takes and gives."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from ralph.process.allowlist import AllowList
from ralph.process.box import Sandbox

StreamName = Literal["stdout", "stderr"]
OutputCallback = Callable[[StreamName, bytes], None]


@dataclass(frozen=True)
class Confinement:
    """Where a process starts: inside the run's sandbox (`box`; None: none) and with what of
    ralph's environment (`allow`; None: all of it). A value each request carries, from the
    run's options to the one place that starts processes: no process-wide state."""

    box: Sandbox | None = None
    allow: AllowList | None = None


# Outside a run (a version probe), or ralph's own helpers that need the desktop: never what
# an agent or a check runs in a run, which passes the run's own.
OPEN = Confinement()


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
    # Inside a sandbox the process gets only the basic variables (process/sandbox.py), ralph's
    # own, what ralph.yaml's `sandbox.env` names and these: its CLI's own (credentials, config).
    passes: frozenset[str] = frozenset()
    # A check's clean room (store/rooms/room.py): inside ralph's store, which every sandbox hides,
    # yet this process works there (it may read and write it, and nothing else of the store).
    room: Path | None = None
    # A check's run in a room (every one: the sealed tests' run, checks/sealed.py, must look
    # like the others): inside a sandbox it may write its room only; the project and every
    # other folder are read-only, TMPDIR is its own and goes with it, so nothing it copies of
    # the sealed files outlives it where the agent looks.
    sealed: bool = False
    # Beside its room, the folders a sealed process may write all the same (the person's uv
    # cache, for ralph's build of the checks' environment: store/environments/envbuild.py).
    writes: tuple[Path, ...] = ()
    # Where it starts (the run's sandbox, its rules for the environment): always said, so no
    # caller can forget it; OPEN only outside a run and for ralph's own desktop helpers.
    confined: Confinement = field(kw_only=True)

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
