"""The registry of agents `--agent NAME` accepts, and `make_agent`, which makes the one a run uses.

A new agent CLI is one module and one line in `REGISTRY`: the names ralph.yaml's `agent:` and
`agents:`, `--agent` and `ralph agents` know all come from here.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Protocol

from ralph.agents.aider import AiderAgent
from ralph.agents.builtin import BuiltinAgent
from ralph.agents.claude import ClaudeAgent
from ralph.agents.codex import CodexAgent
from ralph.agents.command import CommandAgent
from ralph.agents.cursor import CursorAgent
from ralph.agents.demo.agent import DemoAgent
from ralph.agents.gemini import GeminiAgent
from ralph.agents.opencode import OpenCodeAgent
from ralph.agents.pi import PiAgent
from ralph.errors import ConfigError
from ralph.rules.cmdline import split_command
from ralph.rules.names import command_label, did_you_mean


class RegisteredAgent(Protocol):
    """An agent class the registry holds: its `--agent` name, and how to make one for a run."""

    @property
    def key(self) -> str: ...

    def __call__(
        self,
        env: Mapping[str, str] | None = ...,
        model: str | None = ...,
        args: Sequence[str] = ...,
    ) -> CommandAgent: ...


# In the order `ralph agents` and the error for an unknown name list them.
REGISTRY: dict[str, RegisteredAgent] = {
    agent.key: agent
    for agent in (
        ClaudeAgent,
        CodexAgent,
        GeminiAgent,
        CursorAgent,
        OpenCodeAgent,
        PiAgent,
        AiderAgent,
        DemoAgent,
    )
}


def clis() -> dict[str, type[BuiltinAgent]]:
    """The registered agents that are real CLIs to install, as `ralph agents` probes them."""
    return {
        key: agent
        for key, agent in REGISTRY.items()
        if isinstance(agent, type) and issubclass(agent, BuiltinAgent)
    }


def make_agent(
    name: str | None,
    command: str | Sequence[str] | None,
    env: Mapping[str, str],
    model: str | None = None,
    args: Sequence[str] = (),
) -> CommandAgent:
    """The agent a run uses: a custom command, or a registered agent by name.

    `model` and `args` (from --model, `model:` and `args:`) go where each CLI takes them; a
    custom command gets the args appended and the model in RALPH_MODEL.
    """
    if command is not None:
        try:
            argv = (
                split_command(command, windows=sys.platform == "win32")
                if isinstance(command, str)
                else list(command)
            )
        except ValueError as exc:  # an unbalanced quote
            raise ConfigError(
                f"agent command {command!r}: {exc}",
                "quote it as a shell would, or give agent.command as a list in ralph.yaml",
            ) from None
        label = name or command_label(argv)
        return CommandAgent(label, [*argv, *args] if argv else argv, env, model)
    if name is None:
        raise ConfigError(
            "no agent configured",
            "pass --agent claude (or another built-in agent) or --agent 'cmd:CMD', "
            "or set agent.name / agent.command in ralph.yaml",
        )
    agent = REGISTRY.get(name)
    if agent is None:
        raise ConfigError(
            f"unknown agent: {name}{did_you_mean(name, REGISTRY)}",
            f"built-in agents: {', '.join(REGISTRY)}; for any other command use --agent 'cmd:CMD'",
        )
    return agent(env=env, model=model, args=args)
