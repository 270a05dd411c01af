"""A run's records as `records.jsonl` holds them (shared by tests/rules/counts/test_runtotals.py,
tests/ui/test_story.py and tests/ui/test_htmlreport.py)."""

from __future__ import annotations

from typing import Any


def rotation(n: int, spec: str, done: int, tokens: int, **more: Any) -> list[dict[str, Any]]:
    """Rotation `n` of `spec`: its start and its DONE end at `done`, `tokens` read."""
    start = {
        "ts": 1000.0 + n,
        "event": "rotation_start",
        "iteration": n,
        "spec": spec,
        "mode": "IMPLEMENT",
        "agent": "claude",
    }
    end = {
        "ts": 1000.5 + n,
        "event": "rotation_end",
        "iteration": n,
        "spec": spec,
        "signal": "DONE",
        "done_count": done,
        "agent_s": 0.4,
        "checks_s": 0.1,
        "seconds": 0.5,
        "input_tokens": tokens,
        "output_tokens": 0,
        "cost_usd": 0.01,
        "downgraded": [],
        **more,
    }
    return [start, end]


def lanes_run() -> list[dict[str, Any]]:
    """Two lanes: rotation 2 (b) ends before rotation 1 (a); then a's lane merges and b, at
    3/3, drops to 2/3."""
    r1, r2 = rotation(1, "a", 1, 100), rotation(2, "b", 3, 10)
    merge = {
        "ts": 1003.0,
        "event": "lane_merge",
        "spec": "a",
        "branch": "ralph/a",
        "into": "main",
        "downgraded": ["b"],
        "closes": True,
    }
    first = {"ts": 1000.0, "event": "run_start", "agent": "claude"}
    return [first, r1[0], r2[0], r2[1], r1[1], merge, *rotation(3, "b", 3, 1)]
