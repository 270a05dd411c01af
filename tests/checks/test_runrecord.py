"""checks/runrecord.py: ralph's pytest plugin placed in a room, named to pytest, and its
records read back (through the one reader: a link there is no record)."""

from __future__ import annotations

import json
import os
import shlex
from pathlib import Path

from ralph.checks import runrecord


def test_the_plugin_is_placed_first_on_the_path_and_loaded_by_pytest(tmp_path: Path) -> None:
    (tmp_path / ".ralph").mkdir()
    (tmp_path / ".ralph" / "planted.py").write_text("x")  # never a tree's: gone
    runrecord.place(tmp_path)
    folder = runrecord.folder(tmp_path)
    assert sorted(p.name for p in (tmp_path / ".ralph").iterdir()) == ["record"]
    assert (folder / "ralph_record.py").read_text().startswith('"""pytest\'s own record')
    env = runrecord.env({"PYTHONPATH": "/a", "PYTEST_ADDOPTS": "-c x"}, tmp_path)
    assert env["PYTHONPATH"] == f"{folder}{os.pathsep}/a"
    assert shlex.split(env["PYTEST_ADDOPTS"]) == ["-p", "ralph_record", "-c", "x"]


def test_records_are_read_and_cleared(tmp_path: Path) -> None:
    runrecord.place(tmp_path)
    folder = runrecord.folder(tmp_path)
    assert runrecord.read(tmp_path) is None
    data = {"stage": "ended", "collected": 1, "ran": 1, "errors": 0}
    counts = {"passed": 1, "failed": 0, "skipped": 0}
    (folder / "session-1.json").write_text(json.dumps({**data, **counts}))
    (folder / "session-2.tmp").write_text("half")  # a record being written: not one
    got = runrecord.read(tmp_path)
    assert got is not None and got.refusal is None and got.counts.passed == 1
    runrecord.clear(tmp_path)
    assert runrecord.read(tmp_path) is None
    assert (folder / "ralph_record.py").exists()


def test_a_link_in_place_of_a_record_is_an_unreadable_record(tmp_path: Path) -> None:
    runrecord.place(tmp_path)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text(json.dumps({"stage": "ended"}))
    (runrecord.folder(tmp_path) / "session-3.json").symlink_to(elsewhere)
    got = runrecord.read(tmp_path)
    assert got is not None and got.refusal is not None
