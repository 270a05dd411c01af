"""store/live/takeover.py: a run killed is archived as the next takes over, and said in one line.

Whole takeovers after a real kill -9 are tests/e2e/test_job_story.py's and test_takeover.py's."""

from __future__ import annotations

from pathlib import Path

from ralph.store.disk.workspace import Workspace
from ralph.store.live.takeover import taken_over
from ralph.store.records.worklog import append_worklog


def test_a_killed_run_is_archived_and_said_with_what_was_stopped(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.store.mkdir(parents=True)
    append_worklog((ws.worklog,), "run_start", agent="x")  # and no run_end: killed
    said = taken_over({"pid": 41}, [7, 8], tmp_path)
    assert said is not None and said.startswith("the last run (pid 41) was killed")
    assert "stopped the 2 processes it left running (pid 7, 8)" in said
    (folder,) = (tmp_path / ".ralph" / "archive").iterdir()
    assert folder.name.endswith("-killed") and f"ralph report --run {folder.name}" in said
    assert (ws.archived / folder.name / "worklog.jsonl").is_file()


def test_a_run_that_ended_is_no_takeover(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    ws.store.mkdir(parents=True)
    append_worklog((ws.worklog,), "run_start", agent="x")
    append_worklog((ws.worklog,), "run_end", exit_code=0)
    assert taken_over(None, [], tmp_path) is None  # no run.json left: it ended as it should
    assert taken_over({"pid": 41}, [], tmp_path) is None  # its end recorded, nothing left
    assert not (tmp_path / ".ralph" / "archive").exists()
