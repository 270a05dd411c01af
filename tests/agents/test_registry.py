"""agents/registry.py: the agents `--agent NAME` accepts, as the plugins register them, and
`make_agent`, which makes the one a run uses."""

from __future__ import annotations

from typing import cast

import pytest

from ralph.agents import registry as agents
from ralph.agents.registry import make_agent, registry
from ralph.errors import ConfigError
from ralph.plugins.manager import plugins
from tests.fakes.plugins import AgentPlugin, add_plugin


def test_models_per_mode_fall_back_to_model() -> None:
    agent = make_agent("claude", None, {}, "sonnet")
    agent.models = {"review": "haiku", "verify": "opus"}
    assert [agent.model_for(m) for m in ("IMPLEMENT", "REVIEW", "VERIFY", "JUDGE")] == [
        "sonnet",
        "haiku",
        "opus",
        "sonnet",
    ]
    assert agent.for_mode("IMPLEMENT") is agent  # nothing to change: the same agent
    assert agent.for_mode("REVIEW").model == "haiku" and agent.model == "sonnet"


def test_every_registered_name_makes_its_agent() -> None:
    for name, agent in registry().items():
        assert agent.key == name
        assert make_agent(name, None, {}).name == name


def test_every_built_in_agent_is_registered_through_the_hook() -> None:
    # the names come from the plugins' `ralph_agents`, one module each, in BUILTIN's order
    names = [cls.key for module in agents.BUILTIN for cls in module.ralph_agents()]
    assert list(registry()) == names
    assert names == ["claude", "codex", "gemini", "cursor", "opencode", "pi", "aider", "demo"]
    hooked = {impl.plugin_name for impl in plugins().manager.hook.ralph_agents.get_hookimpls()}
    assert {m.__name__ for m in agents.BUILTIN} <= hooked


class _Mine:
    key = "mine"

    def __init__(self, **kwargs: object) -> None:
        self.kwargs = kwargs


class _Claude(_Mine):
    key = "claude"


def test_a_plugins_agent_joins_the_names_and_cannot_take_a_built_in_name(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(ConfigError, match="unknown agent: mine"):
        make_agent("mine", None, {})  # the control: not there before
    add_plugin(monkeypatch, AgentPlugin(_Mine, _Claude), "mine-plugin")
    assert list(registry())[-1] == "mine"
    assert registry()["claude"] is not cast(object, _Claude)  # ralph's own keeps its name
    assert "plugin mine-plugin: agent name 'claude' is taken" in capsys.readouterr().err


def test_a_plugin_whose_hook_raises_is_left_out_and_named(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from ralph.plugins.hookspecs import hookimpl

    class Raising:
        @hookimpl
        def ralph_agents(self) -> list[object]:
            raise RuntimeError("boom")

    before = list(registry())
    add_plugin(monkeypatch, Raising(), "raising-plugin")
    assert list(registry()) == before
    err = capsys.readouterr().err
    assert "plugin raising-plugin: ralph_agents raised RuntimeError: boom; left out" in err


def test_the_agent_options_help_names_every_built_in_agent() -> None:
    # read at every start-up, the help cannot ask the plugins (that imports every agent): a
    # test holds it to them instead
    from ralph.run.settings import _AGENT

    listed = _AGENT.split(": ", 1)[1].split(", a name")[0].split(", ")
    assert listed == [cls.key for m in agents.BUILTIN for cls in m.ralph_agents()]
