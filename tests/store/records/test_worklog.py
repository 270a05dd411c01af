"""The worklog: one JSON object per line; a line cut short never stops a reader."""

from __future__ import annotations

import json
from pathlib import Path

from ralph.store.records.worklog import append_worklog, last_run, read_worklog, worklog_tail


def _damaged(tmp_path: Path) -> Path:
    path = tmp_path / "worklog.jsonl"
    append_worklog((path,), "run_start", agent="demo")
    with path.open("a", encoding="utf-8") as f:
        f.write('{"ts": 1, "event": "rotation_st\n[1, 2]\n')  # a crash mid-write; not an object
    append_worklog((path,), "run_end", code=0)
    return path


def test_append_writes_one_timestamped_object_per_line(tmp_path: Path) -> None:
    path = tmp_path / "worklog.jsonl"
    append_worklog((path,), "signal", spec="PROMPT.md", signal="DONE")
    append_worklog((path,), "run_end", code=0)
    lines = path.read_text(encoding="utf-8").splitlines()
    first = json.loads(lines[0])
    assert len(lines) == 2 and isinstance(first.pop("ts"), float)
    assert first == {"event": "signal", "spec": "PROMPT.md", "signal": "DONE"}


def test_reading_every_record_skips_a_damaged_line(tmp_path: Path) -> None:
    events = [rec["event"] for rec in read_worklog(_damaged(tmp_path))]
    assert events == ["run_start", "run_end"]


def test_the_tail_shows_a_damaged_line_as_such(tmp_path: Path) -> None:
    events = [rec["event"] for rec in worklog_tail(_damaged(tmp_path), 3)]
    assert events == ["(unreadable line)", "(unreadable line)", "run_end"]


def test_a_missing_worklog_reads_as_empty(tmp_path: Path) -> None:
    assert read_worklog(tmp_path / "none.jsonl") == []
    assert worklog_tail(tmp_path / "none.jsonl", 5) == []


def test_last_run_is_the_records_from_the_last_run_start(tmp_path: Path) -> None:
    path = tmp_path / "worklog.jsonl"
    assert last_run(path) == []  # no worklog yet
    for event in ("run_start", "run_end", "run_start", "rotation_end"):
        append_worklog((path,), event, n=1)
    assert [r["event"] for r in last_run(path)] == ["run_start", "rotation_end"]
    with path.open("a") as f:
        f.write('{"event": "run_start", cut short by a kill\n')  # not a record: not a start
    assert [r["event"] for r in last_run(path)] == ["run_start", "rotation_end"]
