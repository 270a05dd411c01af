"""A member of the agent pool: one agent and its own limits for a rotation."""

from __future__ import annotations

from dataclasses import dataclass

from ralph.agents.command import CommandAgent


@dataclass(frozen=True)
class Member:
    """One agent of the pool and its own limits for a rotation."""

    agent: CommandAgent
    timeout: float | None = None  # wall-clock seconds per rotation
    idle_timeout: float | None = None  # seconds without output
    kill_grace: float = 5.0  # SIGTERM -> SIGKILL of the agent's process tree

    @property
    def name(self) -> str:
        return self.agent.name
