"""commands/history.py: `ralph history`."""

from __future__ import annotations

from typing import Any

from tests.conftest import Project

DONE: list[dict[str, Any]] = [{"signal": "DONE"}]


def test_history_reads_cost_when_the_worklog_has_it(project: Project) -> None:
    from ralph.commands.rotations import rotations_from_worklog

    rows = rotations_from_worklog(
        [
            {"ts": 10.0, "event": "rotation_start", "iteration": 1, "spec": "a", "agent": "x"},
            {
                "ts": 12.5,
                "event": "rotation_end",
                "iteration": 1,
                "spec": "a",
                "signal": "DONE",
                "files_changed": 0,
                "usage": {"cost_usd": 0.5},
            },
            {"ts": 13.0, "event": "rotation_start", "iteration": 2, "spec": "a", "agent": "x"},
        ]
    )
    assert rows[0].duration == 2.5 and rows[0].cost_usd == 0.5
    assert rows[1].signal is None  # no end recorded: ralph was killed, or it is running
