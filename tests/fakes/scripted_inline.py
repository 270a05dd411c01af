"""The scripted agent in-process: the same steps as scripted_agent.py, without starting Python.

Registered under `--agent scripted` for one test (`Project.fake`), it is an agent like any
other: ralph builds its request, environment and prompt file, and parses its output, with its
own code. Only the process is left out: the step runs in this process, in the project's folder,
its output streamed to ralph as a process's would be. No process means no PID (nothing for a
later run to reap), so tests of processes, signals and timeouts use the real program.
"""

from __future__ import annotations

import io
import threading
import time
import traceback
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from ralph.agents.command import CommandAgent
from ralph.process.request import OutputCallback, ProcessRequest, ProcessResult, StreamName
from tests.fakes.scripted_agent import play


class _Pipe(io.TextIOBase):
    """One output stream: each write goes to ralph at once, as bytes, and is counted."""

    def __init__(self, name: StreamName, on_output: OutputCallback) -> None:
        self.name = name
        self.on_output = on_output
        self.data = bytearray()

    def write(self, text: str) -> int:
        chunk = text.encode()
        if chunk:
            self.data += chunk
            self.on_output(self.name, chunk)
        return len(text)


class _Interrupted(Exception):
    """`ralph cancel --now` (or Ctrl-C) came during a step's sleep."""


class ScriptedInlineAgent(CommandAgent):
    """The scripted agent whose script is `script` (set by `Project.fake`)."""

    key: ClassVar[str] = "scripted"
    script: ClassVar[Path]

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        model: str | None = None,
        args: Sequence[str] = (),
    ) -> None:
        super().__init__(self.key, ["scripted", *args], env, model)

    def resolve(self, root: Path) -> tuple[str, ...]:
        return self.argv  # no program to find on PATH

    def execute(
        self,
        request: ProcessRequest,
        on_output: OutputCallback,
        *,
        cancel: threading.Event | None = None,
        on_start: Callable[[int], None] | None = None,
    ) -> ProcessResult:
        out, err = _Pipe("stdout", on_output), _Pipe("stderr", on_output)
        prompt = request.stdin_path.read_text() if request.stdin_path is not None else ""

        def sleep(seconds: float) -> None:
            if cancel is not None and cancel.wait(seconds):
                raise _Interrupted

        started, clock = time.time(), time.monotonic()
        exit_code: int | None
        interrupted = False
        try:
            exit_code = play(self.script, prompt, request.env, request.cwd, out, err, sleep)
        except _Interrupted:
            exit_code, interrupted = None, True
        except Exception:  # what a crashing program shows: its traceback, exit code 1
            err.write(traceback.format_exc())
            exit_code = 1
        return ProcessResult(
            exit_code=exit_code,
            stdout_tail=bytes(out.data[-request.tail_bytes :]),
            stderr_tail=bytes(err.data[-request.tail_bytes :]),
            stdout_bytes=len(out.data),
            stderr_bytes=len(err.data),
            started=started,
            ended=time.time(),
            timed_out=False,
            idle_timed_out=False,
            interrupted=interrupted,
            duration=time.monotonic() - clock,
        )


def inline_agent(script: Path) -> type[ScriptedInlineAgent]:
    """The agent class `--agent scripted` makes, playing `script`."""
    return type("ScriptedInline", (ScriptedInlineAgent,), {"script": script})
