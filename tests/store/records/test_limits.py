"""store/records/limits.py: the agents' limit windows kept across runs; ralph reads its own record,
never the copy in .ralph/, and a damaged record is no windows rather than a stop."""

from __future__ import annotations

import json
from pathlib import Path

from ralph.store.disk.private import store_dir
from ralph.store.records.limits import LIMITS_FILE, agent_windows, load_limits, save_limits

WINDOWS = {"agents": {"claude": {"session": {"utilization": 0.9, "resets_at": 1800000000.0}}}}


def test_saved_windows_are_read_back_per_agent(tmp_path: Path) -> None:
    state = tmp_path / ".ralph"
    state.mkdir()
    save_limits(state, WINDOWS)
    assert load_limits(state) == WINDOWS
    assert agent_windows(state, "claude") == WINDOWS["agents"]["claude"]
    assert agent_windows(state, "codex") == {}
    assert json.loads((state / LIMITS_FILE).read_text()) == WINDOWS  # the copy for people


def test_the_copy_in_ralph_folder_decides_nothing(tmp_path: Path) -> None:
    state = tmp_path / ".ralph"
    state.mkdir()
    save_limits(state, WINDOWS)
    forged = {"agents": {"claude": {"session": {"utilization": 0.0}}}}
    (state / LIMITS_FILE).write_text(json.dumps(forged))
    assert load_limits(state) == WINDOWS


def test_no_record_or_a_damaged_one_is_no_windows(tmp_path: Path) -> None:
    state = tmp_path / ".ralph"
    state.mkdir()
    assert load_limits(state) == {}
    save_limits(state, WINDOWS)
    record = store_dir(tmp_path) / LIMITS_FILE
    for damaged in ("{not json", '{"agents": []}', "[]"):
        record.write_text(damaged)
        assert load_limits(state) == {}
        assert agent_windows(state, "claude") == {}
