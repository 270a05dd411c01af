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
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from ralph.errors import AgentError, ConfigError
from ralph.process import ProcessRequest, ProcessResult, run_process
from ralph.rules.prompt import Mode

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
    specs: tuple[str, ...] = ()  # every spec, for a final verification (RALPH_SPECS)


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
    # The agent reported a failure of its own (an error result, a rate limit...), possibly with
    # exit code 0 (aider, pi --mode json): one line, in its own words.
    error: str | None = None

    @property
    def output_text(self) -> str:
        return self.process.stdout_tail.decode("utf-8", errors="replace")

    @property
    def failure(self) -> str | None:
        """Why the rotation failed, or None when the agent finished on its own without error."""
        p = self.process
        if p.interrupted:
            return "interrupted"
        if p.timed_out:
            return f"timed out after {p.elapsed:.0f} s"
        if p.idle_timed_out:
            return f"no output for too long (idle timeout), stopped after {p.elapsed:.0f} s"
        if p.exit_code != 0:
            why = f"exit code {p.exit_code}"
            return f"{why}: {self.error}" if self.error else why
        return self.error


@dataclass(frozen=True)
class Outcome:
    """What an output parser read from a finished rotation."""

    final_text: str | None = None  # None: scan the plain output for the signal
    usage: Usage | None = None
    fault: AgentFault | None = None
    error: str | None = None


class OutputParser:
    """Reads an agent's output line by line as it arrives, in bounded memory.

    `feed` gets complete lines (decoded, at most MAX_EVENT characters) and returns the readable
    lines displays and current.log show; `finish` says what the rotation produced. This base
    class is the plain-text parser of custom commands: lines are shown as they are, and the
    signal is looked for in the output itself.
    """

    def feed(self, stream: Stream, lines: Sequence[str]) -> tuple[str, ...]:
        # LineSplitter's lines carry no trailing "\r": when none is too long (the usual
        # case), they are shown as they are, without a Python call per line.
        if max(map(len, lines), default=0) <= MAX_LINE:
            return tuple(lines)
        return tuple(_bound(line) for line in lines)

    def finish(self, process: ProcessResult) -> Outcome:
        return Outcome()


class LineSplitter:
    """Turns raw chunks into decoded lines of at most `max_line` bytes (memory stays bounded).

    One call per chunk, not per line: an agent printing millions of short lines must not be
    slowed down by ralph reading them. A longer line is cut: its start is kept (marked " …")
    and the rest is skipped up to the next newline.
    """

    def __init__(
        self, emit: Callable[[Stream, tuple[str, ...]], None], max_line: int = MAX_LINE * 4
    ) -> None:
        self._emit = emit
        self._max = max_line
        # Pieces of each stream's unfinished line: a list, so a long line costs one join.
        self._partial: dict[Stream, list[bytes]] = {"stdout": [], "stderr": []}
        self._size: dict[Stream, int] = {"stdout": 0, "stderr": 0}
        self._skipping: dict[Stream, bool] = {"stdout": False, "stderr": False}

    def feed(self, stream: Stream, chunk: bytes) -> None:
        lines: list[str] = []
        end = chunk.rfind(b"\n")
        if end >= 0:
            data: bytes | None = chunk[:end]
            if self._skipping[stream]:
                # Up to the first newline, the chunk is the rest of the line being skipped.
                first = chunk.find(b"\n")
                data = chunk[first + 1 : end] if first < end else None
                self._skipping[stream] = False
            else:
                data = b"".join([*self._partial[stream], chunk[:end]])
            if data is not None:
                # A newline byte never occurs inside a multi-byte UTF-8 character: decoding
                # the complete lines in one go is safe, and much faster than line by line.
                text = data.decode("utf-8", "replace")
                lines = text.split("\n")
                # Per-line work only when some line needs it: millions of short lines stay
                # cheap to read.
                if "\r" in text or max(map(len, lines)) > self._max:
                    lines = [self._cut(line) for line in lines]
            rest = chunk[end + 1 :]
            self._partial[stream] = [rest] if rest else []
            self._size[stream] = len(rest)
        elif not self._skipping[stream]:
            self._partial[stream].append(chunk)
            self._size[stream] += len(chunk)
        if self._size[stream] > self._max:
            head = b"".join(self._partial[stream])[: self._max]
            lines.append(head.decode("utf-8", "replace") + " …")
            self._partial[stream], self._size[stream] = [], 0
            self._skipping[stream] = True
        if lines:
            self._emit(stream, tuple(lines))

    def _cut(self, line: str) -> str:
        line = line.rstrip("\r")
        return line if len(line) <= self._max else line[: self._max] + " …"

    def close(self) -> None:
        for stream, parts in self._partial.items():
            if parts and not self._skipping[stream]:
                self._emit(stream, (self._cut(b"".join(parts).decode("utf-8", "replace")),))
        self._partial = {"stdout": [], "stderr": []}
        self._size = {"stdout": 0, "stderr": 0}


def _bound(text: str) -> str:
    text = text.rstrip("\r")
    return text if len(text) <= MAX_LINE else text[:MAX_LINE] + " …"


def bound_line(text: str) -> str:
    """One display line: at most MAX_LINE characters, no line breaks."""
    return _bound(" ".join(text.split()) if "\n" in text or "\r" in text else text)


class CommandAgent:
    """Any command: the prompt arrives on stdin and in RALPH_PROMPT_FILE."""

    def __init__(
        self,
        name: str,
        argv: Sequence[str],
        env: Mapping[str, str] | None = None,
        model: str | None = None,
    ):
        if not argv:
            raise ConfigError(
                "agent command is empty", "give --agent-command or agent.command a command to run"
            )
        self.name = name
        self.argv = tuple(argv)
        self.extra_env = dict(env or {})
        self.model = model

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
                self.install_hint(),
            )
        return (str(Path(found).absolute()), *self.argv[1:])

    def install_hint(self) -> str:
        return "install it or put it on PATH, or fix --agent-command / agent.command"

    def default_env(self) -> dict[str, str]:
        """Variables the agent runs with unless the user's `env:` says otherwise."""
        return {}

    def build_env(self, request: AgentRequest) -> dict[str, str]:
        env = dict(os.environ)
        env.update(self.default_env())
        env.update(self.extra_env)
        env.update(
            {
                "RALPH_PROMPT_FILE": str(request.prompt_file),
                "RALPH_SPEC": request.spec,
                "RALPH_MODE": request.mode,
                "RALPH_ITERATION": str(request.iteration),
                "RALPH_STATE_DIR": str(request.state_dir),
                "RALPH_HANDOFF_FILE": str(request.handoff_file),
                "RALPH_SPECS": "\n".join(request.specs or (request.spec,)),
                "PWD": str(request.root),  # some CLIs take their working folder from $PWD
            }
        )
        if self.model is not None:
            env["RALPH_MODEL"] = self.model
        return env

    def command(self, request: AgentRequest) -> tuple[tuple[str, ...], Path | None]:
        """The command line and the file fed to its stdin (None: /dev/null)."""
        return self.resolve(request.root), request.prompt_file

    def parser(self) -> OutputParser:
        """A fresh parser for one rotation's output."""
        return OutputParser()

    #: longest line the parser gets whole; structured agents print big JSON events
    max_event = MAX_LINE * 4

    def run(
        self,
        request: AgentRequest,
        on_lines: Callable[[Stream, tuple[str, ...]], None],
        on_chunk: Callable[[Stream, bytes], None] | None = None,
        on_start: Callable[[int], None] | None = None,
        *,
        cancel: threading.Event | None = None,
    ) -> AgentResult:
        """Run one rotation. `on_chunk` gets the raw output (the history log), `on_lines` the
        readable rendering (current.log and the displays). `cancel` set stops the agent's whole
        process tree at once."""
        parser = self.parser()

        def on_split(stream: Stream, lines: tuple[str, ...]) -> None:
            shown = parser.feed(stream, lines)
            if shown:
                on_lines(stream, shown)

        splitter = LineSplitter(on_split, self.max_event)

        def on_output(stream: Stream, chunk: bytes) -> None:
            if on_chunk is not None:
                on_chunk(stream, chunk)
            splitter.feed(stream, chunk)

        argv, stdin = self.command(request)
        process = run_process(
            ProcessRequest(
                argv=argv,
                cwd=request.root,
                env=self.build_env(request),
                stdin_path=stdin,
                timeout=request.timeout,
                idle_timeout=request.idle_timeout,
                kill_grace=request.kill_grace,
                tail_bytes=max(1 << 20, 2 * len(request.prompt.encode())),
            ),
            on_output,
            cancel=cancel,
            on_start=on_start,
        )
        splitter.close()
        outcome = parser.finish(process)
        return AgentResult(
            process=process,
            final_text=outcome.final_text,
            usage=outcome.usage,
            fault=outcome.fault,
            error=outcome.error,
        )


# Every name `--agent` accepts; ralph.agents.REGISTRY holds the real CLIs among them.
BUILTIN = ("claude", "codex", "gemini", "cursor", "opencode", "pi", "aider", "demo")


def make_agent(
    name: str | None,
    command: str | Sequence[str] | None,
    env: Mapping[str, str],
    model: str | None = None,
    args: Sequence[str] = (),
) -> CommandAgent:
    """The agent a run uses: a custom command, or a built-in agent by name.

    `model` and `args` (from --model, `model:` and `args:`) go where each CLI takes them; a
    custom command gets the args appended and the model in RALPH_MODEL.
    """
    if command is not None:
        try:
            argv = shlex.split(command) if isinstance(command, str) else list(command)
        except ValueError as exc:  # an unbalanced quote
            raise ConfigError(
                f"agent command {command!r}: {exc}",
                "quote it as a shell would, or give agent.command as a list in ralph.yaml",
            ) from None
        label = (name or Path(argv[0]).name) if argv else "custom"
        return CommandAgent(label, [*argv, *args] if argv else argv, env, model)
    if name == "demo":
        return CommandAgent("demo", [sys.executable, "-m", "ralph.agents.demo", *args], env, model)
    if name is None:
        raise ConfigError(
            "no agent configured",
            "pass --agent claude (or another built-in agent) or --agent-command 'CMD', "
            "or set agent.name / agent.command in ralph.yaml",
        )
    from ralph.agents import REGISTRY

    adapter = REGISTRY.get(name)
    if adapter is None:
        raise ConfigError(
            f"unknown agent: {name}",
            f"built-in agents: {', '.join(BUILTIN)}; for any other command use --agent-command "
            "'CMD'",
        )
    return adapter(env=env, model=model, args=args)
