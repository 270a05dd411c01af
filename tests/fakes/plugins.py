"""A plugin registered for one test, through the plugin manager every plugin goes through, and
gone when the test ends (its monkeypatch's undo unregisters it)."""

from __future__ import annotations

from typing import Any

import pytest

from ralph.plugins.hookspecs import hookimpl
from ralph.plugins.manager import plugins


class _Registration:
    """`live` registers the plugin when set true and unregisters it when set false: so
    `monkeypatch.setattr(reg, "live", True)` is undone with the test's other patches."""

    def __init__(self, plugin: object, name: str) -> None:
        self.plugin, self.name = plugin, name

    @property
    def live(self) -> bool:
        return plugins().manager.get_plugin(self.name) is not None

    @live.setter
    def live(self, value: bool) -> None:
        manager = plugins().manager
        if manager.get_plugin(self.name) is not None:  # a later one of the same name replaces it
            manager.unregister(name=self.name)
        if value:
            manager.register(self.plugin, name=self.name)


def add_plugin(monkeypatch: pytest.MonkeyPatch, plugin: object, name: str) -> None:
    monkeypatch.setattr(_Registration(plugin, name), "live", True)


class AgentPlugin:
    """A plugin whose `ralph_agents` registers `agents`."""

    def __init__(self, *agents: Any) -> None:
        self.agents = list(agents)

    @hookimpl
    def ralph_agents(self) -> list[Any]:
        return self.agents


def add_agent(monkeypatch: pytest.MonkeyPatch, agent: Any) -> None:
    """`agent` known to `--agent` by its key, for this test."""
    add_plugin(monkeypatch, AgentPlugin(agent), f"tests.fakes.agent.{agent.key}")
