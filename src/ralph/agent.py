"""Agents: how ralph turns one rotation's request into a process and reads its result.

Every agent is a command run through `ralph.process.run_process`. Built-in agents for the real
CLIs subclass `CommandAgent` and override how the command line is built and where the final
message is found in their structured output.
"""

from __future__ import annotations

import os
import shlex
import shutil
import sys
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ralph.errors import AgentError, ConfigError
from ralph.events import Mode
from ralph.process import ProcessRequest, ProcessResult, run_process

MAX_LINE = 2000  # characters of one output line a display gets; the history log keeps all
Stream = Literal["stdout", "stderr"]


@dataclass(frozen=True)
class AgentRequest:
    prompt: str
    prompt_file: Path  # the prompt, also written to disk (RALPH_PROMPT_FILE)
    root: Path
    spec: str  # relative to root, forward slashes
    mode: Mode
    iteration: int
    state_dir: Path
    handoff_file: Path
    timeout: float | None = None
    idle_timeout: float | None = None
    kill_grace: float = 5.0


@dataclass(frozen=True)
class Usage:
    """What one rotation cost, as far as the agent's output reports it."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None  # None: the agent does not report a price


FaultKind = Literal["rate_limit", "auth", "overflow"]


@dataclass(frozen=True)
class AgentFault:
    """A failure that is not the work's fault and must be handled its own way: a usage or rate
    limit (bench the agent until `resets_at`, epoch seconds, when known), an auth or
    configuration error (stop the run at once), a context overflow (ROTATE with a note)."""

    kind: FaultKind
    message: str  # the agent's own words, one line
    resets_at: float | None = None


@dataclass(frozen=True)
class AgentResult:
    process: ProcessResult
    final_text: str | None  # the agent's final message, where its output format reports one
    usage: Usage | None = None  # None: the agent reported nothing
    fault: AgentFault | None = None

    @property
    def output_text(self) -> str:
        return self.process.stdout_tail.decode("utf-8", errors="replace")

    @property
    def failure(self) -> str | None:
        """Why the rotation failed, or None when the agent exited 0 on its own."""
        p = self.process
        if p.interrupted:
            return "interrupted"
        if p.timed_out:
            return f"timed out after {p.elapsed:.0f} s"
        if p.idle_timed_out:
            return f"no output for too long (idle timeout), stopped after {p.elapsed:.0f} s"
        if p.exit_code != 0:
            return f"exit code {p.exit_code}"
        return None


class LineSplitter:
    """Turns raw chunks into bounded, decoded lines for displays (memory stays bounded).

    One call per chunk, not per line: an agent printing millions of short lines must not be
    slowed down by ralph reading them.
    """

    def __init__(self, emit: Callable[[Stream, tuple[str, ...]], None]) -> None:
        self._emit = emit
        self._partial: dict[Stream, bytes] = {"stdout": b"", "stderr": b""}

    def feed(self, stream: Stream, chunk: bytes) -> None:
        data = self._partial[stream] + chunk
        end = data.rfind(b"\n")
        lines: list[str] = []
        if end >= 0:
            # A newline byte never occurs inside a multi-byte UTF-8 character: decoding the
            # complete lines in one go is safe, and much faster than line by line.
            lines = [_bound(line) for line in data[:end].decode("utf-8", "replace").split("\n")]
            data = data[end + 1 :]
        if len(data) > MAX_LINE * 4:  # a line that never ends: show its start, drop the rest
            lines.append(_bound(data.decode("utf-8", "replace")) + " …")
            data = b""
        self._partial[stream] = data
        if lines:
            self._emit(stream, tuple(lines))

    def close(self) -> None:
        for stream, rest in self._partial.items():
            if rest:
                self._emit(stream, (_bound(rest.decode("utf-8", "replace")),))
        self._partial = {"stdout": b"", "stderr": b""}


def _bound(text: str) -> str:
    text = text.rstrip("\r")
    return text if len(text) <= MAX_LINE else text[:MAX_LINE] + " …"


class CommandAgent:
    """Any command: the prompt arrives on stdin and in RALPH_PROMPT_FILE."""

    def __init__(self, name: str, argv: Sequence[str], env: Mapping[str, str] | None = None):
        if not argv:
            raise ConfigError(
                "agent command is empty", "give --agent-command or agent.command a command to run"
            )
        self.name = name
        self.argv = tuple(argv)
        self.extra_env = dict(env or {})

    def resolve(self, root: Path) -> tuple[str, ...]:
        """argv with the executable made absolute; AgentError when it does not exist.

        Absolute but not resolved: a venv's python is a symlink whose target lacks the venv.
        """
        exe = self.argv[0]
        if os.sep in exe or (os.altsep and os.altsep in exe):
            candidate = Path(root, exe).absolute()
            found = str(candidate) if os.access(candidate, os.X_OK) else None
        else:
            found = shutil.which(exe, path=self.extra_env.get("PATH", os.environ.get("PATH")))
        if found is None or not Path(found).is_file():
            raise AgentError(
                f"agent command not found: {exe}",
                "install it or put it on PATH, or fix --agent-command / agent.command",
            )
        return (str(Path(found).absolute()), *self.argv[1:])

    def build_env(self, request: AgentRequest) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.extra_env)
        env.update(
            {
                "RALPH_PROMPT_FILE": str(request.prompt_file),
                "RALPH_SPEC": request.spec,
                "RALPH_MODE": request.mode,
                "RALPH_ITERATION": str(request.iteration),
                "RALPH_STATE_DIR": str(request.state_dir),
                "RALPH_HANDOFF_FILE": str(request.handoff_file),
                "PWD": str(request.root),  # some CLIs take their working folder from $PWD
            }
        )
        return env

    def final_text(self, process: ProcessResult) -> str | None:
        """Plain-text agents report no separate final message: the output is scanned."""
        return None

    def run(
        self,
        request: AgentRequest,
        on_lines: Callable[[Stream, tuple[str, ...]], None],
        on_chunk: Callable[[Stream, bytes], None] | None = None,
        on_start: Callable[[int], None] | None = None,
    ) -> AgentResult:
        splitter = LineSplitter(on_lines)

        def on_output(stream: Stream, chunk: bytes) -> None:
            if on_chunk is not None:
                on_chunk(stream, chunk)
            splitter.feed(stream, chunk)

        process = run_process(
            ProcessRequest(
                argv=self.resolve(request.root),
                cwd=request.root,
                env=self.build_env(request),
                stdin_path=request.prompt_file,
                timeout=request.timeout,
                idle_timeout=request.idle_timeout,
                kill_grace=request.kill_grace,
                tail_bytes=max(1 << 20, 2 * len(request.prompt.encode())),
            ),
            on_output,
            on_start=on_start,
        )
        splitter.close()
        return AgentResult(process=process, final_text=self.final_text(process))


BUILTIN = ("demo",)


def make_agent(
    name: str | None, command: str | Sequence[str] | None, env: Mapping[str, str]
) -> CommandAgent:
    """The agent a run uses: a custom command, or a built-in agent by name."""
    if command is not None:
        try:
            argv = shlex.split(command) if isinstance(command, str) else list(command)
        except ValueError as exc:  # an unbalanced quote
            raise ConfigError(
                f"agent command {command!r}: {exc}",
                "quote it as a shell would, or give agent.command as a list in ralph.yaml",
            ) from None
        label = (name or Path(argv[0]).name) if argv else "custom"
        return CommandAgent(label, argv, env)
    if name == "demo":
        return CommandAgent("demo", [sys.executable, "-m", "ralph.demo_agent"], env)
    if name is None:
        raise ConfigError(
            "no agent configured",
            "pass --agent demo or --agent-command 'CMD', or set agent.command in ralph.yaml",
        )
    raise ConfigError(
        f"unknown agent: {name}",
        f"built-in agents: {', '.join(BUILTIN)}; for any other command use --agent-command 'CMD'",
    )
