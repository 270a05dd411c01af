"""The command agent: any command run for one rotation, the prompt on stdin and in a file.

Every agent is a command run through `ralph.process.runner.run_process`. Built-in agents for the
real CLIs subclass `CommandAgent` and override how the command line is built and where the final
message is found in their structured output.
"""

from __future__ import annotations

import copy
import os
import shutil
import threading
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path

from ralph.agents.credentials import agent_secrets
from ralph.agents.output import MAX_LINE, LineSplitter, OutputParser
from ralph.agents.request import AgentRequest
from ralph.agents.result import AgentResult, limits_of
from ralph.errors import AgentError, ConfigError
from ralph.process.request import OutputCallback, ProcessRequest, ProcessResult, StreamName
from ralph.process.runner import run_process
from ralph.process.spawn import StartError
from ralph.rules.text.redact import redactor
from ralph.rules.text.streamredact import StreamRedactor


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
                "agent command is empty", "give --agent 'cmd:CMD' or agent.command a command to run"
            )
        self.name = name
        self.argv = tuple(argv)
        self.extra_env = dict(env or {})
        self.model = model
        self.models: dict[str, str] = {}  # mode (implement, review, verify, judge) -> model

    #: whose models the CLI runs by default (None: unknown, a custom command)
    default_vendor: str | None = None

    def model_for(self, mode: str) -> str | None:
        """The model for a rotation of `mode` (IMPLEMENT, REVIEW, VERIFY, JUDGE): `models:` for
        that mode, else `model:`."""
        return self.models.get(mode.lower(), self.model)

    def for_mode(self, mode: str) -> CommandAgent:
        """This agent set up for a rotation of `mode`: the same agent, its model chosen."""
        model = self.model_for(mode)
        if model == self.model:
            return self
        agent = copy.copy(self)
        agent.model = model
        return agent

    def vendor(self, mode: str = "IMPLEMENT") -> str | None:
        """Whose model runs in `mode`, when it can be told."""
        from ralph.rules.agents.vendor import vendor_of

        return vendor_of(self.model_for(mode), self.default_vendor)

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
        return "install it or put it on PATH, or fix --agent cmd:CMD / agent.command"

    def default_env(self) -> dict[str, str]:
        """Variables the agent runs with unless the user's `env:` says otherwise."""
        return {}

    def base_env(self) -> dict[str, str]:
        """ralph's environment with the agent's defaults and the user's `env:` over it."""
        return {**os.environ, **self.default_env(), **self.extra_env}

    def passes(self) -> frozenset[str]:
        """The variables this agent needs inside a sandbox beyond the basic ones: its defaults
        and those the person's `env:` sets for it; the run's trace context (a traced run's)."""
        return frozenset({*self.default_env(), *self.extra_env, "TRACEPARENT", "TRACESTATE"})

    def secrets(
        self, env: Mapping[str, str] | None = None, argv: Sequence[str] | None = None
    ) -> frozenset[str]:
        """The secret values this agent runs with (its credentials, `--api-key` values):
        redacted from everything ralph writes of its output."""
        if argv is None:
            argv = (*self.argv, *getattr(self, "args", ()))  # a built-in's extra arguments
        return agent_secrets(env or self.base_env(), argv, self.key_vars())

    def key_vars(self) -> tuple[str, ...]:
        """Variables holding this agent's keys beyond the credential-named ones (a built-in
        CLI's own, and those its configuration names)."""
        return ()

    def build_env(self, request: AgentRequest) -> dict[str, str]:
        env = self.base_env()
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
        env.update(request.trace)  # a CLI that exports its own telemetry joins the run's trace
        if request.state_dir.resolve() in request.root.resolve().parents:  # a lane (.ralph/...)
            from ralph.process.treecode import tree_code

            # the agent's own test runs in its lane import the lane's code, as its checks do
            env = tree_code(request.root, request.state_dir.parent, env).env
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
        on_lines: Callable[[StreamName, tuple[str, ...]], None],
        on_chunk: Callable[[StreamName, bytes], None] | None = None,
        on_start: Callable[[int], None] | None = None,
        *,
        cancel: threading.Event | None = None,
    ) -> AgentResult:
        """Run one rotation. `on_chunk` gets the raw output (the history log), `on_lines` the
        readable rendering (current.log and the displays). `cancel` set stops the agent's whole
        process tree at once. Both get the output with its secrets redacted, a line at a time;
        so do the output tails of the result."""
        parser = self.parser()
        chosen = self.for_mode(request.mode)  # the model of this mode on its command line
        env = chosen.build_env(request)
        argv, stdin = chosen.command(request)
        redact = StreamRedactor(redactor(self.secrets(env, argv) | request.secrets))

        def on_split(stream: StreamName, lines: tuple[str, ...]) -> None:
            shown = parser.feed(stream, lines)
            if shown:
                on_lines(stream, shown)

        splitter = LineSplitter(on_split, self.max_event)

        def forward(stream: StreamName, data: bytes) -> None:
            if not data:
                return
            if on_chunk is not None:
                on_chunk(stream, data)
            splitter.feed(stream, data)

        def on_output(stream: StreamName, chunk: bytes) -> None:
            # The one place an agent's output enters ralph: nothing downstream sees a secret.
            forward(stream, redact.feed(stream, chunk))

        try:
            process = self.execute(
                ProcessRequest(
                    argv=argv,
                    cwd=request.root,
                    env=env,
                    stdin_path=stdin,
                    timeout=request.timeout,
                    idle_timeout=request.idle_timeout,
                    kill_grace=request.kill_grace,
                    tail_bytes=max(1 << 20, 2 * len(request.prompt.encode())),
                    passes=chosen.passes(),
                    confined=request.confined,
                ),
                on_output,
                cancel=cancel,
                on_start=on_start,
            )
        except StartError as exc:
            raise start_failure(exc) from exc
        for stream in ("stdout", "stderr"):
            forward(stream, redact.flush(stream))
        splitter.close()
        process = replace(
            process,
            stdout_tail=redact.tail(process.stdout_tail, process.stdout_bytes),
            stderr_tail=redact.tail(process.stderr_tail, process.stderr_bytes),
        )
        outcome = parser.finish(process)
        return AgentResult(
            process=process,
            final_text=outcome.final_text,
            usage=outcome.usage,
            fault=outcome.fault,
            error=outcome.error,
            limits=limits_of(outcome),
        )

    def execute(
        self,
        request: ProcessRequest,
        on_output: OutputCallback,
        *,
        cancel: threading.Event | None = None,
        on_start: Callable[[int], None] | None = None,
    ) -> ProcessResult:
        """Run the command line. The one step an in-process test double replaces
        (tests/fakes/scripted_inline.py): everything around it, from the environment to the
        parsing of the output, is the same for every agent."""
        return run_process(request, on_output, cancel=cancel, on_start=on_start)


def start_failure(exc: StartError) -> AgentError:
    """A process that could not start, worded as the agent's, with what to do about it."""
    if exc.stdin is not None:
        return AgentError(
            f"cannot start agent: {exc.program}: cannot read prompt file "
            f"{exc.stdin}: {exc.error.strerror or exc.error}",
            "check that the prompt file exists and is readable",
        )
    return AgentError(f"cannot start agent: {exc.program}: {exc.reason}", _hint(exc))


def _hint(exc: StartError) -> str:
    if isinstance(exc.error, PermissionError):
        return "make the agent executable (chmod +x) or fix the agent command in ralph.yaml"
    if isinstance(exc.error, FileNotFoundError) and not exc.cwd.is_dir():
        return f"the working directory {exc.cwd} does not exist"
    if isinstance(exc.error, FileNotFoundError):
        return "install the agent CLI or fix the agent command in ralph.yaml"
    return "check the agent command in ralph.yaml"
