"""store/live/liverun.py: the live run as `ralph status` sees it: a probe of the lock and ralph's
own copy of run.json, never the one in `.ralph/`."""

from __future__ import annotations

import json
from pathlib import Path

from ralph.store.disk.private import store_dir
from ralph.store.live.liverun import RUN_FILE, is_live, lock_file, read_run
from ralph.store.live.runlock import RunLock


def test_no_run_no_info_whatever_run_json_says(tmp_path: Path) -> None:
    state = tmp_path / ".ralph"
    state.mkdir()
    (state / RUN_FILE).write_text(json.dumps({"pid": 4242, "started_at": 1.0}))  # a killed run's
    assert not is_live(state)
    assert read_run(state) is None


def test_the_live_runs_info_is_ralphs_own_copy(tmp_path: Path) -> None:
    state = tmp_path / ".ralph"
    with RunLock(state, current_spec="a") as lock:
        (state / RUN_FILE).write_text(json.dumps({"pid": 1, "current_spec": "forged"}))
        live = read_run(state)
        assert live is not None
        assert live.pid == lock.info["pid"] and live.data["current_spec"] == "a"


def test_a_damaged_copy_still_says_a_run_is_live(tmp_path: Path) -> None:
    state = tmp_path / ".ralph"
    with RunLock(state):
        (store_dir(tmp_path) / RUN_FILE).write_text("{cut sh")
        live = read_run(state)
        assert live is not None and (live.pid, live.data) == (0, {})


def test_the_project_folders_lock_alone_says_live(tmp_path: Path) -> None:
    state = tmp_path / ".ralph"
    with RunLock(state):
        lock_file(state).unlink()  # deleted away: the folder's flock still tells
        assert is_live(state)
