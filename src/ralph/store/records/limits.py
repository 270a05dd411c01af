"""`limits.json`: each agent's limit windows as its CLI last reported them (window,
utilisation, reset time), for `ralph status` and `ralph agents`. Kept across runs: a window's
reset time stays true after the run that saw it has ended. Written by the run's recorder in
ralph's store (the record, read back) and in `.ralph/` (a copy for people, never read)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ralph.errors import StateError
from ralph.store.disk.files import load_json, write_json_atomic
from ralph.store.disk.private import ensure_store, store_dir

LIMITS_FILE = "limits.json"


def load_limits(state_dir: Path) -> dict[str, Any]:
    """The saved windows; empty when there are none, or when the file is unreadable (it is a
    report, not state: a damaged one is replaced by the next report, never a reason to stop)."""
    try:
        data = load_json(store_dir(state_dir.parent) / LIMITS_FILE, f"ralph's {LIMITS_FILE}")
    except StateError:
        return {}
    return data if isinstance(data, dict) and isinstance(data.get("agents"), dict) else {}


def save_limits(state_dir: Path, data: dict[str, Any]) -> None:
    write_json_atomic(ensure_store(state_dir.parent) / LIMITS_FILE, data, durable=False)
    write_json_atomic(state_dir / LIMITS_FILE, data, durable=False)


def agent_windows(state_dir: Path, agent: str) -> dict[str, Any]:
    windows = load_limits(state_dir).get("agents", {}).get(agent)
    return windows if isinstance(windows, dict) else {}
