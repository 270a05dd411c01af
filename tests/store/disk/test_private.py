"""store/disk/private.py: ralph's own store, outside the project, one per repository path.

The whole runs (the agent forging `.ralph/`, a sandbox hiding the store) are in
tests/e2e/test_private_store.py; here each rule is met on a folder."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from ralph.store.disk.private import (
    LEGACY,
    drop_legacy,
    ensure_store,
    lost_store,
    project_of,
    restore_state,
    state_home,
    store_dir,
    stores_root,
)


def test_the_state_folder_is_xdgs_when_absolute_else_the_homes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.platform", "linux")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert state_home() == tmp_path / "xdg"
    # the XDG spec: a relative one is ignored, as an unset one
    monkeypatch.setenv("XDG_STATE_HOME", "relative/state")
    assert state_home() == tmp_path / "home" / ".local" / "state"
    monkeypatch.delenv("XDG_STATE_HOME")
    assert state_home() == tmp_path / "home" / ".local" / "state"


def test_windows_keeps_it_under_local_app_data(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.platform", "win32")
    monkeypatch.setenv("LOCALAPPDATA", str(tmp_path / "local"))
    assert state_home() == tmp_path / "local"


def test_a_store_is_keyed_by_the_resolved_path_not_by_the_name(tmp_path: Path) -> None:
    one, other = tmp_path / "a" / "calc", tmp_path / "b" / "calc"
    one.mkdir(parents=True)
    other.mkdir(parents=True)
    (tmp_path / "link").symlink_to(one)
    assert store_dir(one) != store_dir(other)  # a moved or cloned project starts afresh
    assert store_dir(tmp_path / "link") == store_dir(one)
    assert store_dir(one).parent == stores_root() / "projects"
    assert store_dir(one).name.startswith("calc-")
    assert not store_dir(one).is_relative_to(one)


def test_a_store_name_keeps_only_safe_characters(tmp_path: Path) -> None:
    odd = tmp_path / ("my project; rm -rf $HOME" + "x" * 60)
    odd.mkdir()
    name = store_dir(odd).name
    assert name.startswith("my_project_rm_-rf_HOME")
    assert len(name) == 40 + 1 + 16


def test_the_store_and_the_folders_ralph_made_for_it_are_private(tmp_path: Path) -> None:
    stores_root().mkdir(parents=True)
    stores_root().chmod(0o755)  # loosened since: made private again
    store = ensure_store(tmp_path)
    assert store == store_dir(tmp_path)
    for folder in (stores_root(), store.parent, store):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert ensure_store(tmp_path) == store  # again: nothing to create


def test_a_state_file_names_its_project_only_inside_dot_ralph(tmp_path: Path) -> None:
    assert project_of(tmp_path / ".ralph" / "state.json") == tmp_path
    assert project_of(tmp_path / "elsewhere" / "state.json") is None


def _legacy(root: Path, *names: str) -> Path:
    dot = root / ".ralph"
    dot.mkdir(exist_ok=True)
    for name in names:
        (dot / name).write_text("{}")
    return dot


def test_an_earlier_ralphs_files_are_removed_unread_and_said_once(tmp_path: Path) -> None:
    dot = _legacy(tmp_path, "run-options.json", "snapshot.json", "state.json")
    (dot / "tests").mkdir()
    (dot / "tests" / "baseline.json").write_text("forged")
    (dot / "run.lock").write_text("")
    said = drop_legacy(tmp_path)
    assert said is not None
    assert ".ralph/run-options.json" in said and ".ralph/tests" in said
    assert "index-flags.json" not in said  # only what was there
    assert {p.name for p in dot.iterdir()} == {"state.json"}  # the person's state stays
    assert drop_legacy(tmp_path) is None  # nothing left to say


def test_nothing_to_drop_says_nothing(tmp_path: Path) -> None:
    assert drop_legacy(tmp_path) is None  # no .ralph at all
    _legacy(tmp_path, "state.json")
    assert drop_legacy(tmp_path) is None
    assert ensure_store(tmp_path).is_dir()


def test_a_dot_ralph_link_is_never_followed_to_remove_anything(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.mkdir()
    for name in LEGACY:
        (victim / name).write_text("keep")
    project = tmp_path / "p"
    project.mkdir()
    (project / ".ralph").symlink_to(victim)
    assert drop_legacy(project) is None
    assert sorted(p.name for p in victim.iterdir()) == sorted(LEGACY)


def test_a_legacy_link_is_removed_not_followed(tmp_path: Path) -> None:
    kept = tmp_path / "person.json"
    kept.write_text("mine")
    dot = _legacy(tmp_path)
    (dot / "snapshot.json").symlink_to(kept)
    assert drop_legacy(tmp_path) is not None
    assert not (dot / "snapshot.json").is_symlink()
    assert kept.read_text() == "mine"


def test_the_old_worklog_starts_the_stores_record_once(tmp_path: Path) -> None:
    dot = _legacy(tmp_path)
    (dot / "worklog.jsonl").write_text('{"event": "run_start"}\n')
    drop_legacy(tmp_path)
    record = store_dir(tmp_path) / "worklog.jsonl"
    assert record.read_text() == '{"event": "run_start"}\n'
    (dot / "worklog.jsonl").write_text('{"event": "forged"}\n')
    drop_legacy(tmp_path)
    assert record.read_text() == '{"event": "run_start"}\n'  # adopted once, never again
    assert (dot / "worklog.jsonl").exists()  # ralph keeps writing it for people


def test_a_worklog_link_is_not_adopted(tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("token\n")
    dot = _legacy(tmp_path)
    (dot / "worklog.jsonl").symlink_to(secret)
    drop_legacy(tmp_path)
    assert not (store_dir(tmp_path) / "worklog.jsonl").exists()


def test_a_killed_saves_temporary_files_are_swept_not_anyone_elses(tmp_path: Path) -> None:
    store = ensure_store(tmp_path)
    (store / "baselines").mkdir()
    left = store / "baselines" / ".state.json.0123456789ab.tmp"
    left.write_text("half")
    mine = store / "baselines" / "notes.tmp"
    mine.write_text("kept")
    in_room = store / "rooms" / "r" / ".x.0123456789ab.tmp"
    in_room.parent.mkdir(parents=True)
    in_room.write_text("the project's own")
    drop_legacy(tmp_path)
    assert not left.exists()
    assert mine.exists() and in_room.exists()


def _shown_state(root: Path, rotation: int) -> None:
    dot = root / ".ralph"
    dot.mkdir(parents=True, exist_ok=True)
    (dot / "state.json").write_text(json.dumps({"last_rotation": rotation, "specs": []}))


def test_a_lost_store_is_said_when_dot_ralph_shows_earlier_runs(tmp_path: Path) -> None:
    _shown_state(tmp_path, 3)
    said = lost_store(tmp_path)
    assert said is not None and str(store_dir(tmp_path)) in said
    # the control: the store has its state, or the project never ran a rotation
    _shown_state(tmp_path, 0)
    assert lost_store(tmp_path) is None
    _shown_state(tmp_path, 3)
    ensure_store(tmp_path)
    (store_dir(tmp_path) / "state.json").write_text("{}")
    assert lost_store(tmp_path) is None


def test_a_lost_store_is_not_read_through_a_link(tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    _shown_state(elsewhere, 3)
    project = tmp_path / "p"
    project.mkdir()
    (project / ".ralph").symlink_to(elsewhere / ".ralph")
    assert lost_store(project) is None
    (project / ".ralph").unlink()
    (project / ".ralph").mkdir()
    (project / ".ralph" / "state.json").symlink_to(elsewhere / ".ralph" / "state.json")
    assert lost_store(project) is None


OWN = '{"last_rotation": 2, "specs": []}'


def _own_state(root: Path) -> Path:
    (ensure_store(root) / "state.json").write_text(OWN)
    shown = root / ".ralph" / "state.json"
    shown.parent.mkdir(exist_ok=True)
    shown.write_text(OWN)
    return shown


def test_an_intact_state_file_is_left_alone(tmp_path: Path) -> None:
    _own_state(tmp_path)
    assert restore_state(tmp_path) is None


def test_no_own_copy_yet_restores_nothing(tmp_path: Path) -> None:
    _shown_state(tmp_path, 5)
    assert restore_state(tmp_path) is None
    assert json.loads((tmp_path / ".ralph" / "state.json").read_text())["last_rotation"] == 5


@pytest.mark.parametrize(
    ("damage", "said"),
    [
        ("forged", "did not match ralph's own record"),
        ("missing", "was missing"),
        ("link", "was replaced by a link"),
    ],
)
def test_a_damaged_state_file_is_restored_from_the_store(
    tmp_path: Path, damage: str, said: str
) -> None:
    shown = _own_state(tmp_path)
    target = tmp_path / "target.json"
    target.write_text("the agent's")
    shown.unlink()
    if damage == "forged":
        shown.write_text('{"last_rotation": 2, "specs": [{"path": "a", "done_count": 9}]}')
    elif damage == "link":
        shown.symlink_to(target)
    line = restore_state(tmp_path)
    assert line == f".ralph/state.json {said}: restored from ralph's private store"
    assert not shown.is_symlink() and shown.read_text() == OWN
    assert target.read_text() == "the agent's"  # nothing written through the link


def test_a_dot_ralph_link_is_never_written_through(tmp_path: Path) -> None:
    (ensure_store(tmp_path) / "state.json").write_text(OWN)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (tmp_path / ".ralph").symlink_to(elsewhere)
    assert restore_state(tmp_path) is None
    assert list(elsewhere.iterdir()) == []
