"""store/live/runlock.py: one run per project, whatever the agent deletes or forges, and what
taking the project finds and puts right.

How a live run looks from another command (the probes, run.json) is
tests/store/live/test_liverun.py."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest
from filelock import FileLock

from ralph.errors import LockError, StateError
from ralph.store.disk.private import ensure_store, store_dir
from ralph.store.live.liverun import RUN_FILE, _filelock_held, is_live, lock_file
from ralph.store.live.runlock import RunLock


def test_the_run_lock_is_seen_by_both_probes_and_released(tmp_path: Path) -> None:
    state = tmp_path / ".ralph"
    with RunLock(state):
        assert is_live(state)
        assert _filelock_held(lock_file(state))  # the probe Windows uses
        with pytest.raises(LockError, match="another ralph run is live"), RunLock(state):
            pass
        assert is_live(state)  # the refused second run took nothing from the first
    assert not is_live(state)
    assert not _filelock_held(lock_file(state))
    assert not (state / "run.json").exists()


def test_a_probe_holding_the_lock_for_an_instant_does_not_refuse_a_starting_run(
    tmp_path: Path,
) -> None:
    # `ralph status` probes by taking the lock for an instant: a run starting at that very
    # moment waits for it instead of reporting "another ralph run is live".
    state = tmp_path / ".ralph"
    state.mkdir()
    ensure_store(tmp_path)
    probe = FileLock(lock_file(state), thread_local=False)
    probe.acquire()
    releaser = threading.Timer(0.3, probe.release)
    releaser.start()
    try:
        with RunLock(state, current_spec="a") as lock:
            assert json.loads((state / "run.json").read_text())["current_spec"] == "a"
            assert lock.info["pid"] > 0
    finally:
        releaser.join()


def test_deleting_the_lock_file_lets_no_second_run_in(tmp_path: Path) -> None:
    state = tmp_path / ".ralph"
    with RunLock(state):
        lock_file(state).unlink()  # the agent's, where no sandbox hides the store
        with pytest.raises(LockError, match="another ralph run is live"), RunLock(state):
            pass
    with RunLock(state):  # the control: once the run ends, the next one starts
        pass


def test_a_refusal_names_the_live_run_from_ralphs_own_copy(tmp_path: Path) -> None:
    state = tmp_path / ".ralph"
    with RunLock(state, current_spec="specs/a.spec.md") as live:
        forged = {"pid": 1, "started_at": 0, "current_spec": "forged"}
        (state / RUN_FILE).write_text(json.dumps(forged))
        with pytest.raises(LockError) as refused, RunLock(state):
            pass
    said = str(refused.value)
    assert f"pid {live.info['pid']}" in said and "on specs/a.spec.md" in said
    assert "forged" not in said


def test_run_json_is_written_for_people_and_for_ralph_and_both_go(tmp_path: Path) -> None:
    state = tmp_path / ".ralph"
    own = store_dir(tmp_path) / RUN_FILE
    with RunLock(state) as lock:
        lock.update(current_spec="b", iteration=3)
        for copy in (own, state / RUN_FILE):
            data = json.loads(copy.read_text())
            assert data["current_spec"] == "b" and data["run_id"] == lock.run_id
    assert not own.exists() and not (state / RUN_FILE).exists()


def test_a_run_json_link_is_left_alone_at_the_end(tmp_path: Path) -> None:
    state = tmp_path / ".ralph"
    target = tmp_path / "person.json"
    target.write_text("mine")
    with RunLock(state):
        (state / RUN_FILE).unlink()
        (state / RUN_FILE).symlink_to(target)
    assert target.read_text() == "mine"


def test_a_dot_ralph_file_is_refused_in_one_line(tmp_path: Path) -> None:
    (tmp_path / ".ralph").write_text("")
    with pytest.raises(StateError, match="is a file, not a folder"), RunLock(tmp_path / ".ralph"):
        pass


def test_taking_the_project_says_what_it_put_right(tmp_path: Path) -> None:
    state = tmp_path / ".ralph"
    state.mkdir()
    (state / "run-options.json").write_text('{"agent_command": "forged"}')
    with RunLock(state) as lock:
        assert len(lock.notes) == 1 and ".ralph/run-options.json" in lock.notes[0]
    with RunLock(state) as again:
        assert again.notes == []


def test_run_json_is_written_only_when_its_news_change(tmp_path: Path) -> None:
    """A rotation's news that run.json already holds (the pool as it was) are not written
    again; control: a changed value is, in both copies."""
    state = tmp_path / ".ralph"
    own = store_dir(tmp_path) / RUN_FILE
    with RunLock(state) as lock:
        lock.update(current_spec="b", pool=[{"name": "a", "status": "a ready"}])
        stamps = [(p.stat().st_ino, p.stat().st_mtime_ns) for p in (own, state / RUN_FILE)]
        lock.update(pool=[{"name": "a", "status": "a ready"}])
        assert [(p.stat().st_ino, p.stat().st_mtime_ns) for p in (own, state / RUN_FILE)] == stamps
        lock.update(current_spec="c")
        for copy in (own, state / RUN_FILE):
            assert json.loads(copy.read_text())["current_spec"] == "c"


def test_news_changed_in_place_are_written(tmp_path: Path) -> None:
    # the lanes' news are one dict their notes change in place: what was written decides
    state = tmp_path / ".ralph"
    lanes: dict[str, object] = {"a": {"agent_pid": None}}
    with RunLock(state) as lock:
        lock.update(lanes=lanes)
        lanes["b"] = {"agent_pid": 42}
        lock.update(lanes=lanes)
        assert json.loads((state / RUN_FILE).read_text())["lanes"]["b"] == {"agent_pid": 42}
