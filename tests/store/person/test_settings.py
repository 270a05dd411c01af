"""store/person/settings.py: the settings a person accepted, recorded in ralph's store: what a run
uses, what it records as it takes the project and as it ends, and a held edit accepted only
as it was shown.

Whose edit it is (every case) is tests/rules/environment/test_settings.py's; whole runs are
tests/e2e/test_settings_accept.py's."""

from __future__ import annotations

import json
from pathlib import Path

from ralph.store.disk.private import ensure_store, store_dir
from ralph.store.disk.workspace import Workspace
from ralph.store.person import settings

MINE, AGENTS = "test_command: pytest -q\n", "test_command: 'true'\n"


def _run(root: Path) -> settings.Settled:
    """A run takes the project: settled, then recorded."""
    settled = settings.settle(root)
    settings.begin(root, settled)
    return settled


def _project(tmp_path: Path) -> Path:
    Workspace(tmp_path).ensure()
    (tmp_path / "ralph.yaml").write_text(MINE)
    return tmp_path


def test_a_first_run_accepts_the_file_as_it_is(tmp_path: Path) -> None:
    root = _project(tmp_path)
    settled = _run(root)
    assert settled.config().test_command == "pytest -q" and settled.note is None
    record = json.loads((store_dir(root) / settings.SETTINGS_FILE).read_text())
    assert record == {"accepted": MINE, "seen": MINE, "running": True}
    settings.finish(root)
    record = json.loads((store_dir(root) / settings.SETTINGS_FILE).read_text())
    assert record["running"] is False


def test_an_edit_made_during_a_run_is_held_for_a_person(tmp_path: Path) -> None:
    root = _project(tmp_path)
    _run(root)
    (root / "ralph.yaml").write_text(AGENTS)  # the agent's, while the run holds the project
    settings.finish(root)
    assert settings.pending(root) == (MINE, AGENTS)
    assert settings.accepted_config(root).test_command == "pytest -q"
    config, said = settings.settings_for(root, "doctor")
    assert config.test_command == "pytest -q"
    assert said is not None and "ralph doctor uses the accepted ones" in said
    settled = _run(root)  # the next run too
    assert settled.config().test_command == "pytest -q"
    assert settled.note is not None and "ralph accept" in settled.note


def test_an_edit_made_between_runs_is_the_persons(tmp_path: Path) -> None:
    root = _project(tmp_path)
    _run(root)
    settings.finish(root)
    (root / "ralph.yaml").write_text(AGENTS)
    assert _run(root).config().test_command == "true"
    assert settings.pending(root) is None


def test_a_held_edit_is_accepted_only_as_it_was_shown(tmp_path: Path) -> None:
    root = _project(tmp_path)
    _run(root)
    (root / "ralph.yaml").write_text(AGENTS)
    settings.finish(root)
    shown = settings.key(AGENTS)
    (root / "ralph.yaml").write_text("test_command: rm -rf ~\n")  # changed after it was shown
    assert not settings.accept(root, shown)
    assert settings.pending(root) is not None
    (root / "ralph.yaml").write_text(AGENTS)
    assert settings.accept(root, shown)
    assert settings.pending(root) is None
    assert settings.accepted_config(root).test_command == "true"


def test_a_killed_runs_record_holds_any_edit(tmp_path: Path) -> None:
    root = _project(tmp_path)
    _run(root)  # never finished: killed
    (root / "ralph.yaml").write_text(AGENTS)
    assert settings.settle(root).config().test_command == "pytest -q"


def test_a_damaged_record_counts_as_none(tmp_path: Path) -> None:
    root = _project(tmp_path)
    record = ensure_store(root) / settings.SETTINGS_FILE
    for text in ("{cut", "[]", json.dumps({"accepted": 3, "seen": None})):
        record.write_text(text)
        assert settings.load_record(root) is None, text
    assert settings.key(None) != settings.key("")
