"""The built-in agents: one module per CLI, each a `CommandAgent` that knows its command line,
how to read its structured output (final text, usage and cost, limits and errors) and how to
show it. `REGISTRY` maps the `--agent` name to the class, in the order `ralph agents` lists them."""

from __future__ import annotations

from ralph.agents.aider import AiderAgent
from ralph.agents.base import BuiltinAgent
from ralph.agents.claude import ClaudeAgent
from ralph.agents.codex import CodexAgent
from ralph.agents.cursor import CursorAgent
from ralph.agents.gemini import GeminiAgent
from ralph.agents.opencode import OpenCodeAgent
from ralph.agents.pi import PiAgent

REGISTRY: dict[str, type[BuiltinAgent]] = {
    agent.key: agent
    for agent in (
        ClaudeAgent,
        CodexAgent,
        GeminiAgent,
        CursorAgent,
        OpenCodeAgent,
        PiAgent,
        AiderAgent,
    )
}
