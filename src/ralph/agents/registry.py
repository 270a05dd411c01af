"""The agents `--agent NAME` accepts, as the plugins register them, and `make_agent`, which
makes the one a run uses.

ralph's own agent CLIs are plugins like any other (each module implements the `ralph_agents`
hook): a new agent CLI is one module and one line in `BUILTIN`. The names ralph.yaml's `agent:`
and `agents:`, `--agent` and `ralph agents` know all come from `registry()`.
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import Protocol

from ralph.agents import aider, claude, codex, cursor, gemini, opencode, pi
from ralph.agents.builtin import BuiltinAgent
from ralph.agents.command import CommandAgent
from ralph.agents.demo import agent as demo
from ralph.errors import ConfigError
from ralph.plugins.manager import plugins
from ralph.rules.agents.cmdline import split_command
from ralph.rules.text.names import command_label, did_you_mean


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


# ralph's own agents, in the order `ralph agents` and the error for an unknown name list them
BUILTIN = (claude, codex, gemini, cursor, opencode, pi, aider, demo)


def registry() -> dict[str, RegisteredAgent]:
    """Every agent by its `--agent` name: ralph's own first, then the person's plugins'; a
    name already taken stays with the agent that took it first."""
    found = plugins()
    found.register(BUILTIN)
    agents: dict[str, RegisteredAgent] = {}
    for plugin, classes in found.collect("ralph_agents"):
        for agent in classes:
            key = getattr(agent, "key", None)
            if not isinstance(key, str) or not callable(agent):
                found.warn(plugin, f"ralph_agents returned {agent!r}, not an agent class")
            elif key in agents:
                found.warn(plugin, f"agent name {key!r} is taken")
            else:
                agents[key] = agent
    return agents


def clis() -> dict[str, type[BuiltinAgent]]:
    """The registered agents that are real CLIs to install, as `ralph agents` probes them."""
    return {
        key: agent
        for key, agent in registry().items()
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
    agents = registry()
    agent = agents.get(name)
    if agent is None:
        raise ConfigError(
            f"unknown agent: {name}{did_you_mean(name, agents)}",
            f"built-in agents: {', '.join(agents)}; for any other command use --agent 'cmd:CMD'",
        )
    return agent(env=env, model=model, args=args)
