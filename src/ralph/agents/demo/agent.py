"""How ralph starts the demo agent: this Python running `python -m ralph.agents.demo`."""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence
from typing import ClassVar

from ralph.agents.command import CommandAgent
from ralph.plugins.hookspecs import hookimpl


class DemoAgent(CommandAgent):
    """ralph's scripted demo agent: plain output, the prompt on stdin, nothing to install."""

    key: ClassVar[str] = "demo"  # the --agent name

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        model: str | None = None,
        args: Sequence[str] = (),
    ) -> None:
        super().__init__(self.key, [sys.executable, "-m", "ralph.agents.demo", *args], env, model)

    def passes(self) -> frozenset[str]:
        """Its pace (RALPH_DEMO_DELAY) too: ralph's own variables are handed on by name only."""
        return super().passes() | {"RALPH_DEMO_DELAY"}


@hookimpl
def ralph_agents() -> list[type[CommandAgent]]:
    return [DemoAgent]
