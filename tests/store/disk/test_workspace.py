"""store/disk/workspace.py: where each of ralph's files lives, `.ralph/` made for a run, and
`.ralph/` kept out of git."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.errors import StateError, UnsafePath
from ralph.store.disk.private import store_dir
from ralph.store.disk.workspace import GUARDRAILS_TEMPLATE, Workspace, ensure_gitignored


def test_what_ralph_judges_with_is_in_its_store_what_people_read_in_dot_ralph(
    tmp_path: Path,
) -> None:
    ws = Workspace(tmp_path)
    for own in (ws.worklog, ws.records, ws.archived, ws.snapshot_file):
        assert own.is_relative_to(store_dir(tmp_path)) and not own.is_relative_to(tmp_path)
    for shown in (ws.state_file, ws.worklog_copy, ws.history, ws.guardrails, ws.progress):
        assert shown.parent.is_relative_to(ws.dir), shown
    assert ws.history_log("a-spec", 7) == ws.dir / "history" / "a-spec" / "007.log"
    assert ws.rel(ws.handoff("a")) == ".ralph/handoffs/a.md"


def test_a_logs_record_is_found_only_for_a_history_log_name(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    assert ws.record_of(".ralph/history/a/001.log") == ws.records / "a" / "001.log"
    assert ws.record_of(".ralph\\history\\a\\001.log") == ws.records / "a" / "001.log"
    for forged in (
        ".ralph/history/../../etc/passwd",
        ".ralph/history/a/../001.log",
        ".ralph/history/a/b/001.log",
        ".ralph/history/./001.log",
        ".ralph/history//001.log",
        "/etc/passwd",
        "history/a/001.log",
    ):
        assert ws.record_of(forged) is None, forged


def test_numbering_goes_on_from_the_highest_logged_rotation(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    assert ws.last_logged_rotation() == 0
    for name in ("a/003.log", "b/012.log", "b/9x.log", "c/notes.log"):
        (ws.records / name).parent.mkdir(parents=True, exist_ok=True)
        (ws.records / name).write_text("")
    assert ws.last_logged_rotation() == 12


def test_a_dot_ralph_link_or_file_is_refused_in_one_line(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.check()  # the control: none yet
    (tmp_path / ".ralph").write_text("")
    with pytest.raises(StateError, match="is a file, not a folder"):
        ws.ensure()
    (tmp_path / ".ralph").unlink()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / ".ralph").symlink_to(tmp_path / "elsewhere")
    with pytest.raises(UnsafePath, match=r"\.ralph in .* is a link \(to .*elsewhere\)"):
        ws.check()
    with pytest.raises(UnsafePath):
        ws.ensure()
    assert list((tmp_path / "elsewhere").iterdir()) == []


def test_a_run_gets_its_folders_and_never_loses_what_is_there(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.ensure()
    assert ws.handoffs.is_dir() and ws.history.is_dir()
    assert (ws.dir / ".gitignore").read_text().splitlines()[-1] == "*"
    assert ws.guardrails.read_text() == GUARDRAILS_TEMPLATE
    ws.guardrails.write_text("# the person's lessons\n")
    ws.ensure()
    assert ws.guardrails.read_text() == "# the person's lessons\n"


def test_a_guardrails_link_is_refused_not_written_through(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.dir.mkdir()
    ws.guardrails.symlink_to(tmp_path / "target.md")
    with pytest.raises(UnsafePath):
        ws.ensure()
    assert not (tmp_path / "target.md").exists()


def test_a_killed_saves_leftovers_go_but_not_in_worktrees_or_history(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    leftover = ws.handoffs / ".a.md.0123456789ab.tmp"
    in_worktree = ws.dir / "worktrees" / "lane" / ".x.0123456789ab.tmp"
    in_history = ws.history / "a" / ".x.0123456789ab.tmp"
    for path in (leftover, in_worktree, in_history):
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half")
    ws.ensure()
    assert not leftover.exists()
    assert in_worktree.exists() and in_history.exists()


def test_dot_ralph_is_added_to_gitignore_once(tmp_path: Path) -> None:
    gitignore = tmp_path / ".gitignore"
    gitignore.write_text("build/")  # no newline at its end
    assert ensure_gitignored(tmp_path)
    assert gitignore.read_text() == "build/\n# ralph's state (see ralph status)\n.ralph/\n"
    assert not ensure_gitignored(tmp_path)
    for listed in (".ralph", "/.ralph/", "  .ralph/  "):
        gitignore.write_text(f"{listed}\n")
        assert not ensure_gitignored(tmp_path), listed


def test_a_missing_gitignore_is_made(tmp_path: Path) -> None:
    assert ensure_gitignored(tmp_path)
    assert (tmp_path / ".gitignore").read_text().endswith(".ralph/\n")


def test_a_gitignore_link_is_never_written_through(tmp_path: Path) -> None:
    target = tmp_path / "outside"
    target.write_text("mine\n")
    project = tmp_path / "p"
    project.mkdir()
    (project / ".gitignore").symlink_to(target)
    with pytest.raises((UnsafePath, StateError)):
        ensure_gitignored(project)
    assert target.read_text() == "mine\n"
