"""commands/plugins.py: `ralph plugins` lists ralph's own plugins and the person's (name, where
from, version); ralph.yaml disables one or requires one; the run's observers."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest

from ralph.commands.plugins import every_plugin, observers
from ralph.errors import ConfigError
from ralph.plugins.hookspecs import hookimpl
from ralph.plugins.manager import Plugin
from ralph.schemas.catalog import schema_text
from ralph.store.person.config import RalphConfig, parse_config
from tests.conftest import Project
from tests.fakes.plugins import add_plugin


def test_every_built_in_agent_method_and_backend_is_listed_as_a_plugin(project: Project) -> None:
    result = project.run("plugins", "--json")
    assert result.exit_code == 0, result
    data = json.loads(result.stdout)
    jsonschema.validate(data, json.loads(schema_text("plugins")))
    hooks = {p["name"]: p["hooks"] for p in data["plugins"] if p["builtin"]}
    assert hooks["ralph.agents.claude"] == ["ralph_agents"]
    assert hooks["ralph.checks.mutation"] == ["ralph_check_methods"]
    for backend in ("srt", "bwrap", "docker"):  # one module each
        assert hooks[f"ralph.process.backends.{backend}"] == ["ralph_sandbox_backends"]
    text = project.run("plugins").stdout
    assert "ralph.agents.demo.agent  0.1.0  built-in  (ralph_agents)" in text


class _Notifier:
    @hookimpl
    def ralph_event(self, event: dict[str, Any]) -> None:
        pass


def _person(monkeypatch: pytest.MonkeyPatch, name: str) -> None:
    """A plugin of the person's, as the manager records one loaded from an entry point."""
    found = every_plugin(Path("/nonexistent"), RalphConfig())
    add_plugin(monkeypatch, _Notifier(), name)
    monkeypatch.setitem(found.loaded, name, Plugin(name, "/site", "1.0", "notifier"))


def test_a_person_plugin_observes_and_ralph_yaml_can_disable_it(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert observers(project.root, RalphConfig(), otel=False) is None  # the control
    _person(monkeypatch, "notifier")
    assert observers(project.root, RalphConfig(), otel=False) is not None
    off = parse_config("plugins:\n  disable: [notifier]\n")
    assert observers(project.root, off, otel=False) is None


def test_a_required_plugin_that_is_not_loaded_stops_the_run(project: Project) -> None:
    needs = parse_config("plugins:\n  require: [ticketer]\n")
    with pytest.raises(ConfigError, match="requires plugins that are not loaded: ticketer"):
        observers(project.root, needs, otel=False)
    from ralph.commands.doctor import plugin_checks

    (check,) = [c for c in plugin_checks(project.root, needs) if c.name == "ticketer"]
    assert (check.name, check.state, check.detail, check.needed) == (
        "ticketer",
        "fail",
        "not installed",
        True,
    )
