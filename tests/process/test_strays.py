"""process/strays.py: orphans that cleared their environment, noted while ralph lives so that
the next run stops them; a note names a process by PID and start time, so a PID reused since
is never touched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import psutil
import pytest

from ralph.process import strays
from ralph.process.strays import note, note_to, stop_noted

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="strays are Linux's")


@pytest.fixture
def notes(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / strays.STRAYS_FILE
    note_to(path)
    yield path
    note_to(None)


def test_each_stray_is_noted_once(notes: Path) -> None:
    note(101, 5.0)
    note(101, 5.0)
    note(102, 6.0)
    lines = [json.loads(line) for line in notes.read_text().splitlines()]
    assert lines == [{"pid": 101, "started": 5.0}, {"pid": 102, "started": 6.0}]


def test_nothing_is_noted_outside_a_run(tmp_path: Path) -> None:
    note_to(None)
    note(101, 5.0)
    assert list(tmp_path.iterdir()) == []


@posix_only
def test_a_note_is_never_written_through_a_link(notes: Path, tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_text("the person's\n")
    notes.symlink_to(target)
    note(101, 5.0)  # best effort: refused, and the run goes on
    assert target.read_text() == "the person's\n"


@posix_only
def test_a_pid_reused_since_is_never_touched(tmp_path: Path) -> None:
    path = tmp_path / strays.STRAYS_FILE
    path.write_text(json.dumps({"pid": os.getpid(), "started": 1.0}) + "\nnot json\n")
    assert stop_noted(path) == []  # this very process, started long after the note said
    assert not path.exists()  # read once, then gone


@pytest.mark.slow  # starts a stray to stop
@posix_only
def test_a_noted_stray_still_running_is_stopped(tmp_path: Path) -> None:
    stray = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        notes = tmp_path / strays.STRAYS_FILE
        started = psutil.Process(stray.pid).create_time()
        notes.write_text(json.dumps({"pid": stray.pid, "started": started}) + "\n")
        assert len(stop_noted(notes)) == 1
        assert stray.wait(30) < 0
    finally:
        stray.kill()
        stray.wait()
