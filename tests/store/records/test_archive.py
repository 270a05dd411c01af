"""store/records/archive.py: a verified run archived under `.ralph/archive/<time>/`: its records
copied
from ralph's store (the copies in .ralph/ decide nothing), its progress and errors moved so the
next piece of work starts afresh, and a link moved as a link, never followed."""

from __future__ import annotations

from pathlib import Path

from ralph.store.disk.workspace import Workspace
from ralph.store.records.archive import archive_run, move_files, unique_dir

NOW = 1_800_000_000.0


def test_a_second_archive_of_the_same_second_gets_its_own_folder(tmp_path: Path) -> None:
    first = unique_dir(tmp_path, "20270115-083000")
    first.mkdir()
    second = unique_dir(tmp_path, "20270115-083000")
    assert second.name == "20270115-083000-2" and not second.exists()


def test_the_records_are_copied_from_ralphs_store_and_the_notes_moved(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.ensure()
    ws.store.mkdir(parents=True, exist_ok=True)
    (ws.store / "state.json").write_text('{"ralph": "its own"}')
    (ws.dir / "state.json").write_text('{"forged": true}')
    ws.worklog.parent.mkdir(parents=True, exist_ok=True)
    ws.worklog.write_text('{"event": "run_end"}\n')
    ws.progress.write_text("# Progress\n")
    ws.errors_log.write_text("an error\n")
    folder = archive_run(ws, NOW)
    assert (folder / "state.json").read_text() == '{"ralph": "its own"}'
    assert (ws.archived / folder.name / "worklog.jsonl").read_text() == '{"event": "run_end"}\n'
    assert (folder / "progress.md").read_text() == "# Progress\n"
    assert not ws.progress.exists() and not ws.errors_log.exists()  # a fresh record next
    assert ws.worklog.exists()  # append-only: copied, never moved


def test_a_link_is_moved_as_a_link_and_its_target_left_alone(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("a person's file\n")
    root = tmp_path / "proj"
    (root / ".ralph").mkdir(parents=True)
    link = root / ".ralph" / "progress.md"
    link.symlink_to(outside)
    move_files(root, (link, root / ".ralph" / "missing.md"), root / ".ralph" / "archive" / "x")
    moved = root / ".ralph" / "archive" / "x" / "progress.md"
    assert moved.is_symlink() and not link.exists()
    assert outside.read_text() == "a person's file\n"
