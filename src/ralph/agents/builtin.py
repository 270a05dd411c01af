"""What every built-in agent shares: finding its executable, its command line, its version."""

from __future__ import annotations

import os
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import ClassVar

from ralph.agents.command import CommandAgent
from ralph.agents.footprint import Footprint
from ralph.agents.request import AgentRequest
from ralph.errors import AgentError

# Linux refuses a single argument longer than 128 KiB (MAX_ARG_STRLEN); a prompt longer than
# this goes through stdin or a file, as each CLI allows.
ARG_PROMPT_MAX = 100_000
MAX_EVENT = 16 << 20  # longest JSON event parsed whole (a tool result with a big file)


def pointer_prompt(prompt_file: Path) -> str:
    """What a CLI that takes its prompt only as an argument gets when the prompt is too long."""
    return (
        f"Your instructions for this rotation are in the file {prompt_file} (too long for the "
        "command line). Read all of that file first and follow it exactly."
    )


def fits_argument(prompt: str) -> bool:
    return len(prompt.encode("utf-8")) <= ARG_PROMPT_MAX


class BuiltinAgent(CommandAgent):
    """A real agent CLI run headless, with permissions bypassed and structured output."""

    key: ClassVar[str]  # the --agent name
    # what it touches outside the project, its credentials, the files it makes in it: stated
    # by its own module, read wherever they are needed (the sandbox, doctor, redaction);
    # None: a plugin's CLI that states none (no folders or hosts of its own in a sandbox)
    footprint: ClassVar[Footprint | None] = None
    title: ClassVar[str]  # its product name
    executables: ClassVar[tuple[str, ...]]  # looked up on PATH in this order
    install: ClassVar[str]  # how to get it
    env_defaults: ClassVar[Mapping[str, str]] = {}  # telemetry and auto-update off
    max_event = MAX_EVENT

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        model: str | None = None,
        args: Sequence[str] = (),
    ) -> None:
        super().__init__(self.key, (self.executables[0],), env, model)
        self.args = tuple(args)

    def install_hint(self) -> str:
        return f"install {self.title} ({self.install}) and log in, or put it on PATH"

    def find(self) -> str | None:
        """The absolute path of the first of `executables` on PATH (the agent's env's PATH)."""
        path = self.extra_env.get("PATH", os.environ.get("PATH"))
        for name in self.executables:
            found = shutil.which(name, path=path)
            if found is not None and Path(found).is_file():
                return str(Path(found).absolute())
        return None

    def resolve(self, root: Path) -> tuple[str, ...]:
        found = self.find()
        if found is None:
            names = " or ".join(self.executables)
            raise AgentError(f"{self.title} not found: no {names} on PATH", self.install_hint())
        return (found,)

    def default_env(self) -> dict[str, str]:
        return dict(self.env_defaults)

    def key_vars(self) -> tuple[str, ...]:
        """The variables this agent reads its keys from: its CLI's own, plus any its
        configuration names (a custom provider's key variable)."""
        return () if self.footprint is None else self.footprint.key_vars

    def passes(self) -> frozenset[str]:
        """Its own credential, endpoint and config-folder variables too (its footprint),
        and the key variables its configuration names (into a sandbox)."""
        own = () if self.footprint is None else self.footprint.variables
        return super().passes() | frozenset(own) | frozenset(self.key_vars())

    def command_line(self, exe: str, prompt: str, prompt_file: Path) -> tuple[list[str], bool]:
        """The command line for one rotation, and whether the prompt file is fed to stdin."""
        raise NotImplementedError

    def model_args(self) -> list[str]:
        return ["--model", self.model] if self.model else []

    def command(self, request: AgentRequest) -> tuple[tuple[str, ...], Path | None]:
        exe = self.resolve(request.root)[0]
        argv, stdin = self.command_line(exe, request.prompt, request.prompt_file)
        # stdin is /dev/null unless the prompt goes there: Codex and Gemini append piped input
        # to the prompt, and an inherited terminal can hang a CLI waiting for input.
        return tuple(argv), request.prompt_file if stdin else None

    def invocation(self, exe: str | None = None) -> str:
        """How a rotation is started, for `ralph agents`: PROMPT stands for the prompt."""
        import shlex

        argv, stdin = self.command_line(
            exe or self.executables[0], "PROMPT", Path(".ralph/prompt.md")
        )
        line = " ".join(a if a == "PROMPT" else shlex.quote(a) for a in argv)
        return line + (" < .ralph/prompt.md" if stdin else "")
