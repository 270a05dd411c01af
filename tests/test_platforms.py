"""Linux, macOS and Windows: the run lock, command lines and stop signals on each.

The Windows branches that can be reached from here are tested here on every platform (the
command-line split is a pure rule; the lock probe Windows uses works on any filelock)."""

from __future__ import annotations

import json
import signal
import threading
from pathlib import Path

import pytest
from filelock import FileLock

from ralph.errors import LockError
from ralph.process.signals import STOP_SIGNALS
from ralph.store.liverun import _filelock_held, is_live, lock_file
from ralph.store.private import ensure_store
from ralph.store.runlock import RunLock
from tests.platforms import WINDOWS


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


def test_stop_signals_are_the_platforms_own() -> None:
    names = {signal.Signals(sig).name for sig in STOP_SIGNALS}
    if WINDOWS:
        assert names == {"SIGTERM", "SIGBREAK"}
    else:
        assert names == {"SIGTERM", "SIGHUP"}


def test_ci_runs_make_test_on_three_platforms_with_every_supported_python() -> None:
    import re

    import yaml

    repo = Path(__file__).resolve().parents[1]
    workflow = yaml.safe_load((repo / ".github" / "workflows" / "ci.yml").read_text())
    job = workflow["jobs"]["test"]
    matrix = job["strategy"]["matrix"]
    assert set(matrix["os"]) == {"ubuntu-latest", "macos-latest", "windows-latest"}
    assert job["strategy"]["fail-fast"] is False  # one platform's failure hides no other's
    pyproject = (repo / "pyproject.toml").read_text()
    lowest = re.search(r'requires-python = ">=3\.(\d+)"', pyproject)
    assert lowest is not None
    minors = sorted(int(v.split(".")[1]) for v in matrix["python"])
    assert minors[0] == int(lowest.group(1))
    assert minors == list(range(minors[0], minors[-1] + 1))  # none skipped in between
    assert [s["run"] for s in job["steps"] if s.get("name") == "make test"] == ["make test"]
    dist = [s["run"] for s in workflow["jobs"]["dist"]["steps"] if "run" in s]
    assert any(r.startswith("make dist") for r in dist)
