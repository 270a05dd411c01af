"""`plugins:` in ralph.yaml is a setting like any other: an agent's edit of it during a run
(disabling the person's notifier, or requiring a plugin) waits for `ralph accept`; the
person's own edit takes effect."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ralph.commands.plugins import every_plugin
from ralph.plugins.hookspecs import hookimpl
from ralph.plugins.manager import Plugin
from ralph.store.person.config import RalphConfig
from tests.conftest import Project
from tests.fakes.plugins import add_plugin


class _Notifier:
    def __init__(self) -> None:
        self.heard: list[str] = []

    @hookimpl
    def ralph_event(self, event: dict[str, Any]) -> None:
        self.heard.append(event["event"])


def _installed(monkeypatch: pytest.MonkeyPatch) -> _Notifier:
    """The person's notifier, as the manager records one loaded from an entry point."""
    notifier = _Notifier()
    found = every_plugin(Path("/nonexistent"), RalphConfig())
    add_plugin(monkeypatch, notifier, "notifier")
    monkeypatch.setitem(found.loaded, "notifier", Plugin("notifier", "/site", "1.0", "n"))
    return notifier


EDIT = "plugins:\n  disable: [notifier]\n  require: [ticketer]\n"


@pytest.mark.slow
def test_an_agents_edit_of_plugins_waits_for_accept(
    git_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    notifier = _installed(monkeypatch)
    git_project.write({"specs/a.spec.md": "# a\n- [ ] a\n", "ralph.yaml": "max_iterations: 20\n"})
    git_project.commit_all()
    steps = {"*": [{"write": {"ralph.yaml": "max_iterations: 20\n" + EDIT}, "signal": "DONE"}]}
    first = git_project.run("run", *git_project.fake(steps), "--headless")
    assert first.exit_code == 0, first
    assert notifier.heard[0] == "run_started" and notifier.heard[-1] == "run_ended"
    notifier.heard.clear()
    again = git_project.run("run", *git_project.fake({"*": [{"signal": "DONE"}]}), "--headless")
    # the edit is held: the notifier still hears, the required plugin stops nothing
    assert again.exit_code == 0, again
    assert "run_started" in notifier.heard


@pytest.mark.slow
def test_the_persons_own_edit_of_plugins_takes_effect(
    git_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the control: the same words written by the person, between runs, are obeyed
    notifier = _installed(monkeypatch)
    off = "plugins:\n  disable: [notifier]\n"
    git_project.write({"specs/a.spec.md": "# a\n- [ ] a\n", "ralph.yaml": off})
    git_project.commit_all()
    res = git_project.run("run", *git_project.fake({"*": [{"signal": "DONE"}]}), "--headless")
    assert res.exit_code == 0, res
    assert notifier.heard == []  # disabled: it heard nothing
    git_project.write({"ralph.yaml": EDIT})
    res = git_project.run("run", *git_project.fake({"*": [{"signal": "DONE"}]}), "--headless")
    assert res.exit_code == 1
    assert "requires plugins that are not loaded: ticketer: not installed" in res.stderr
    assert notifier.heard == []
