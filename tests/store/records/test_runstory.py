"""store/records/runstory.py: what `ralph report --html` reads of a run: the latest run that did
work
(or an archived one, named from the list, never a path), ralph's own state and logs, each
log's end redacted.

The page itself is tests/ui/test_htmlreport.py's."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from ralph.errors import StateError, UsageError
from ralph.store.disk.workspace import Workspace
from ralph.store.records.runstory import EXCERPT_BYTES, archived_runs, read_run
from tests.sample_records import rotation

KEY = "sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789"


def _worklog(path: Path, records: list[dict[str, Any]]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


def _start(ts: float) -> dict[str, Any]:
    return {"ts": ts, "event": "run_start", "agent": "claude"}


def test_the_latest_run_that_did_work_not_a_later_idle_one(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    worked = [_start(1.0), *rotation(1, "a", 1, 5)]
    idle = [_start(9.0), {"ts": 9.5, "event": "run_end", "exit_code": 0}]
    _worklog(ws.worklog, [_start(0.0), *worked, *idle])
    assert read_run(tmp_path).records == tuple(worked)
    assert read_run(tmp_path, latest=True).records == tuple(idle)  # the run reporting itself
    assert read_run(tmp_path).project == tmp_path.name


def test_no_run_recorded_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(StateError, match="no run to report"):
        read_run(tmp_path)
    _worklog(Workspace(tmp_path).worklog, [{"event": "rotation_start"}])  # no run_start
    with pytest.raises(StateError, match="no run to report"):
        read_run(tmp_path)


def test_the_state_is_ralphs_own_copy_and_a_damaged_one_is_left_out(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    _worklog(ws.worklog, [_start(1.0)])
    (ws.store / "state.json").write_text('{"specs": []}')
    (tmp_path / ".ralph").mkdir()
    (tmp_path / ".ralph" / "state.json").write_text('{"forged": true}')
    assert read_run(tmp_path).state == {"specs": []}
    (ws.store / "state.json").write_text("{cut")
    assert read_run(tmp_path).state == {}


def test_an_archived_run_is_named_from_the_list_never_a_path(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    _worklog(ws.worklog, [_start(1.0)])
    for run_id in ("20261128-0900", "20261127-0800"):
        _worklog(ws.archived / run_id / "worklog.jsonl", [_start(0.5), *rotation(1, run_id, 1, 1)])
    (ws.archived / "empty").mkdir()
    assert archived_runs(tmp_path) == ["20261127-0800", "20261128-0900"]
    assert read_run(tmp_path, "20261127-0800").records[1]["spec"] == "20261127-0800"
    for forged in ("../../elsewhere", "empty", str(ws.worklog.parent)):
        with pytest.raises(UsageError, match="no archived run"):
            read_run(tmp_path, forged)


def test_each_logs_end_is_read_from_ralphs_record_and_redacted(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    log = ".ralph/history/a/001.log"
    record = ws.records / "a" / "001.log"
    record.parent.mkdir(parents=True)
    record.write_text(f"said {KEY}\n<ralph>DONE</ralph>\n")
    copy = tmp_path / log
    copy.parent.mkdir(parents=True)
    copy.write_text("the agent's copy\n")
    outside = tmp_path / "secret.txt"
    outside.write_text("private\n")
    records = [
        _start(1.0),
        *rotation(1, "a", 1, 1, log=log),
        *rotation(2, "b", 1, 1, log=str(outside)),
    ]
    _worklog(ws.worklog, records)
    excerpts = read_run(tmp_path).excerpts
    assert set(excerpts) == {log}
    assert (
        "DONE" in excerpts[log] and KEY not in excerpts[log] and "agent's copy" not in excerpts[log]
    )


def test_a_long_log_is_cut_at_a_line(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    log = ".ralph/history/a/001.log"
    record = ws.records / "a" / "001.log"
    record.parent.mkdir(parents=True)
    # the line cut at its start could hold a secret cut short: it goes whole
    record.write_text("x" * (EXCERPT_BYTES - 10) + f" {KEY[:20]}\n" + "the end\n")
    _worklog(ws.worklog, [_start(1.0), *rotation(1, "a", 1, 1, log=log)])
    assert read_run(tmp_path).excerpts[log] == "the end\n"
