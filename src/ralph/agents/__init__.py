"""The built-in agents: one module per CLI, each a `CommandAgent` that knows its command line,
how to read its structured output (final text, usage and cost, limits and errors) and how to
show it. `REGISTRY` maps the `--agent` name to the class."""

from __future__ import annotations

from ralph.agents.base import BuiltinAgent
from ralph.agents.claude import ClaudeAgent
from ralph.agents.codex import CodexAgent

REGISTRY: dict[str, type[BuiltinAgent]] = {agent.key: agent for agent in (ClaudeAgent, CodexAgent)}
