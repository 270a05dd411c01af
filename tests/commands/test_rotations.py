"""commands/rotations.py: past rotations as the worklog tells them."""

from __future__ import annotations


def test_rotations_are_listed_by_number_whatever_order_lanes_logged_them() -> None:
    from ralph.commands.rotations import rotations_from_worklog

    records = [
        {"event": "rotation_start", "iteration": 2, "spec": "b", "lane": "b-000000", "ts": 2.0},
        {"event": "rotation_start", "iteration": 1, "spec": "a", "lane": "a-000000", "ts": 2.1},
        {"event": "rotation_end", "iteration": 2, "spec": "b", "signal": "DONE", "ts": 3.0},
        {"event": "rotation_end", "iteration": 1, "spec": "a", "signal": "DONE", "ts": 4.0},
    ]
    rows = rotations_from_worklog(records)
    assert [(r.number, r.lane, r.signal) for r in rows] == [
        (1, "a-000000", "DONE"),
        (2, "b-000000", "DONE"),
    ]


def test_history_reads_cost_when_the_worklog_has_it() -> None:
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
