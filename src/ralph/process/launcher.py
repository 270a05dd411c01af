"""How ralph starts a check's process: one value from the run's options down to every check
command (the DONE gate's, the bar's, the final verification's `test_command`)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

from ralph.process.request import OPEN, Confinement, OutputCallback, ProcessRequest, ProcessResult
from ralph.process.runner import run_process

# One process run, the request in and how it ended out: `run_process` fills it, and so does a
# test's in-process fake of the programs a check runs (tests/fakes/commands.py).
Execute = Callable[[ProcessRequest, OutputCallback, threading.Event | None], ProcessResult]


@dataclass(frozen=True)
class Launcher:
    """Where a check's process starts (`confined`: the run's sandbox and its rules for the
    environment, said on its request) and what runs it (`execute`). An agent starts by its
    own seam (agents/command.py), under the same `confined`."""

    confined: Confinement
    execute: Execute = run_process


# Outside a run (a test, a benchmark): the process runner, no sandbox.
PLAIN = Launcher(OPEN)
