"""run/lanerecords.py: what a lanes run's merges leave in the records. A conflict is the one
that writes the spec's handoff and the errors log; a merge writes only the progress log. The
worklog's lane lines are the facts' fields, written by the recorder (run/recorder.LINES)."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from ralph.rules.counts.spec import spec_slug
from ralph.run import lanerecords
from ralph.run.facts import Fact, LaneClosed, LaneConflict, LaneLeftOut, LaneMerged, LaneOpened
from ralph.run.recorder import Recorder
from ralph.store.disk.workspace import Workspace

A = "specs/a.spec.md"


@pytest.fixture
def ws(tmp_path: Path) -> Workspace:
    ws = Workspace(tmp_path)
    ws.ensure()
    return ws


def _log(ws: Workspace) -> tuple[list[tuple[str, dict[str, Any]]], Callable[[Fact], None]]:
    """The worklog lines the recorder writes for the facts handed to it, as read back."""
    recorder, lines = Recorder(ws, [], "round-robin"), list[tuple[str, dict[str, Any]]]()

    def handle(fact: Fact) -> None:
        before = len(recorder.records)
        recorder.handle(fact)
        for record in recorder.records[before:]:
            fields = {k: v for k, v in record.items() if k not in ("ts", "event")}
            lines.append((record["event"], fields))

    return lines, handle


def _read(path: Path) -> str:
    return path.read_text() if path.exists() else ""


def test_an_opened_and_a_closed_lane_are_worklog_lines_only(ws: Workspace) -> None:
    lines, log = _log(ws)
    log(LaneOpened(A, "a-1", ".ralph/lanes/a-1"))
    log(LaneClosed(A, "a-1", False, "kept: unmerged work"))
    assert lines == [
        ("lane_open", {"spec": A, "branch": "a-1", "worktree": ".ralph/lanes/a-1"}),
        (
            "lane_close",
            {"spec": A, "branch": "a-1", "removed": False, "reason": "kept: unmerged work"},
        ),
    ]
    assert _read(ws.progress) == _read(ws.errors_log) == ""


def test_a_merge_is_in_the_progress_log_and_says_whether_the_lane_goes_on(ws: Workspace) -> None:
    lines, log = _log(ws)
    log(LaneMerged(A, "a-1", "main", True, ("specs/b.spec.md",)))
    log(LaneMerged(A, "a-1", "main", False, (), closes=False))
    assert [event for event, _ in lines] == ["lane_merge", "lane_merge"]
    assert lines[0][1]["downgraded"] == ["specs/b.spec.md"] and lines[0][1]["closes"] is True
    progress = _read(ws.progress)
    assert f"{A}: lane a-1 merged into main" in progress
    assert f"{A}: lane a-1 work merged (the lane goes on) into main" in progress
    assert _read(ws.handoff(spec_slug(A))) == _read(ws.errors_log) == ""  # no conflict: no note


@pytest.mark.parametrize(
    ("during", "said"),
    [
        ("merge", "ralph could not merge this spec's lane (a-1) into main"),
        ("update", "ralph could not bring main into this spec's lane (a-1)"),
    ],
)
def test_a_conflict_tells_the_spec_s_next_rotation_what_to_do(
    ws: Workspace, during: str, said: str
) -> None:
    lines, log = _log(ws)
    conflict = LaneConflict(A, "a-1", "main", ("x.txt", "y.txt"), ("specs/b.spec.md",), during)
    log(conflict)
    assert lines == [
        (
            "lane_conflict",
            {
                "spec": A,
                "branch": "a-1",
                "into": "main",
                "files": ["x.txt", "y.txt"],
                "others": ["specs/b.spec.md"],
                "during": during,
            },
        )
    ]
    handoff = _read(ws.handoff(spec_slug(A)))
    assert f"{said}: conflicts in x.txt, y.txt with the work of specs/b.spec.md." in handoff
    assert "run `git merge main`" in handoff and "Nothing was merged for you." in handoff
    assert f"{A}: merge conflict in x.txt, y.txt" in _read(ws.errors_log)


def test_a_conflict_with_no_other_spec_s_work_names_none(ws: Workspace) -> None:
    lanerecords.conflict(ws, LaneConflict(A, "a-1", "main", ("x.txt",), (), "merge"))
    handoff = _read(ws.handoff(spec_slug(A)))
    assert "conflicts in x.txt. In your working folder" in handoff
    assert "with the work of" not in handoff


def test_work_a_verified_lane_left_uncommitted_is_in_the_handoff(ws: Workspace) -> None:
    lines, log = _log(ws)
    log(LaneLeftOut(A, "a-1", "main", ()))  # control: commits only
    assert _read(ws.handoff(spec_slug(A))) == _read(ws.errors_log) == ""
    log(LaneLeftOut(A, "a-1", "main", ("a.txt", "b.txt")))
    assert [event for event, _ in lines] == ["lane_left_out", "lane_left_out"]
    assert lines[1][1]["uncommitted"] == ["a.txt", "b.txt"]
    note = _read(ws.handoff(spec_slug(A)))
    assert "in a.txt, b.txt, so it is not in main" in note and "resolve it" in note
    assert f"{A}: work left uncommitted in its lane: a.txt, b.txt" in _read(ws.errors_log)
