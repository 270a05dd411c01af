"""The programs a check runs, played in-process: a gate's command checks without a process.

Passed to the gate as what its launcher runs (`DoneGate(..., launcher=commands.launcher)`: the
seam `run_process` fills, process/launcher.Launcher): ralph builds each check's request (its shell
command line, the room it runs in, its environment and limits) with its own code and reads the
result with its own code; only the shell is left out. Each command line is answered by what the
test says of it: an exit code and output (and what it wrote on stderr), or a function of the
request, which may read the room the check runs in (the files a real test run would read). A
command nobody named is one the shell cannot find. Every request is kept, so a test can say
what ran, where and with what.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from ralph.process.launcher import Launcher
from ralph.process.request import OPEN, OutputCallback, ProcessRequest, ProcessResult

Answer = tuple[int, str] | tuple[int, str, str]  # (exit code, stdout[, stderr])
Play = Answer | Callable[[ProcessRequest], Answer]


@dataclass(eq=False)  # one by identity: a launcher is a key of ralph's caches (checks/loaded.py)
class Commands:
    """`plays`: a command line -> its answer; `ran`: every request, in order."""

    plays: Mapping[str, Play] = field(default_factory=dict)
    ran: list[ProcessRequest] = field(default_factory=list)

    def __call__(
        self, request: ProcessRequest, on_output: OutputCallback, cancel: threading.Event | None
    ) -> ProcessResult:
        self.ran.append(request)
        line = request.argv[-1]  # `sh -c LINE`: checks/command.shell_argv
        play = self.plays.get(line, (127, f"sh: 1: {line.split(' ')[0]}: not found\n"))
        code, out, *err = play(request) if callable(play) else play
        data, errors = out.encode(), "".join(err).encode()
        on_output("stdout", data)
        now = time.time()
        return ProcessResult(
            exit_code=code,
            stdout_tail=data[-request.tail_bytes :],
            stderr_tail=errors[-request.tail_bytes :],
            stdout_bytes=len(data),
            stderr_bytes=len(errors),
            started=now,
            ended=now,
            timed_out=False,
            idle_timed_out=False,
            interrupted=False,
            duration=0.0,
        )

    @property
    def launcher(self) -> Launcher:
        """Where the checks' commands start as outside a run, played by this fake."""
        return Launcher(OPEN, self)

    def lines(self) -> list[str]:
        """The command lines run, in order."""
        return [r.argv[-1] for r in self.ran]
