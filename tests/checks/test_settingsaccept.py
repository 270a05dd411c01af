"""checks/settingsaccept.py: ralph.yaml changed during a run waits for a person."""

from __future__ import annotations

from pathlib import Path

from ralph.checks.acceptance import Scope
from ralph.checks.settingsaccept import SettingsAcceptor
from ralph.rules.counts.state import State
from ralph.store.disk.workspace import Workspace
from ralph.store.person import settings


def test_an_edit_during_a_run_is_shown_and_taken(tmp_path: Path) -> None:
    Workspace(tmp_path).ensure()
    (tmp_path / "ralph.yaml").write_text("test_command: pytest -q\n")
    settings.begin(tmp_path, settings.settle(tmp_path))  # a run starts: the file is accepted
    scope, acceptor = Scope(tmp_path, tmp_path), SettingsAcceptor()
    assert acceptor.pending(scope, State()) == []
    (tmp_path / "ralph.yaml").write_text("test_command: 'true'\n")  # the agent's edit
    items = acceptor.pending(scope, State())
    assert len(items) == 1
    assert "-test_command: pytest -q" in items[0].lines
    assert "+test_command: 'true'" in items[0].lines
    acceptor.accept(scope, State(), items)
    assert acceptor.pending(scope, State()) == []
    assert settings.accepted_config(tmp_path).test_command == "true"
