"""run/takeover.py, in-process (the scripted agent, the real scheduler): state.json is saved
before the records that tell it (tests/run/test_ledger.py), and a run that takes over from a
kill between the two records the state's counters and says so in one line. A kill is what is
left on disk: the worklog is append-only, so the worklog at the moment of the kill is a prefix
of it, and state.json is what the last save left."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

from ralph.errors import ExitCode
from ralph.run.events import Event, Notice
from ralph.run.facts import Reconciled
from ralph.run.start import run_loop
from ralph.run.takeover import take_over
from ralph.store.disk.workspace import Workspace
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project
from tests.run.test_merging import lane_run
from tests.run.test_start import TWO, WORK, options

A = "specs/a.spec.md"


def _records(ws: Workspace) -> list[dict[str, Any]]:
    return [json.loads(line) for line in ws.worklog.read_text().splitlines()]


def _killed_after_the_state_save(project: Project) -> Workspace:
    """One rotation, a. DONE counted, then the worklog as a kill right after the state save
    leaves it: without the rotation's records and the run's end."""
    lanes_project(project, TWO)
    ws = Workspace(project.root)
    code = run_loop(options(project, WORK, max_iterations=1), lambda e: None)
    assert code == ExitCode.MAX_ITERATIONS
    lines = ws.worklog.read_text().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if '"event": "signal"' in line)
    ws.worklog.write_text("".join(lines[:cut]))
    return ws


def test_a_run_that_takes_over_records_the_state_s_counters_and_says_so(
    project: Project,
) -> None:
    ws = _killed_after_the_state_save(project)
    assert project.counts()[A] == 1  # the state counted it: never lost
    said: list[Event] = []
    run_loop(options(project, WORK, max_iterations=1), said.append)
    lines = [e.message for e in said if isinstance(e, Notice) and "killed before" in e.message]
    assert lines == [
        "the last run was killed before its records caught up with state.json (the truth): "
        f"the worklog now records the state's counters ({A} 0/3 -> 1/3)"
    ]
    records = _records(ws)
    reconciled = [r for r in records if r["event"] == "reconciled"]
    assert [(r["counts"][A], r["told"]) for r in reconciled] == [(1, {A: 0})]
    start = max(i for i, r in enumerate(records) if r["event"] == "run_start")
    assert records.index(reconciled[0]) < start  # before the run moves anything
    assert records[start]["counts"][A] == 1


def test_a_run_that_ended_leaves_nothing_to_reconcile(project: Project) -> None:
    """The control: the same run, not killed: the next run says nothing of it."""
    lanes_project(project, TWO)
    ws = Workspace(project.root)
    run_loop(options(project, WORK, max_iterations=1), lambda e: None)
    said: list[Event] = []
    run_loop(options(project, WORK, max_iterations=1), said.append)
    assert not any(isinstance(e, Notice) and "killed before" in e.message for e in said)
    assert not any(r["event"] == "reconciled" for r in _records(ws))


def test_records_that_tell_the_state_say_nothing_and_a_save_they_miss_is_said(
    project: Project,
) -> None:
    """take_over itself, on a run under way (its run_start records the counters): nothing to
    say while the records tell the state; a state saved without its record is said once."""
    lanes_project(project, TWO)
    with lane_run(project) as (run, said):
        take_over(run.shared, run.state)
        assert not [f for f in said if isinstance(f, Reconciled)]
        row = run.state.get(A)
        assert row is not None
        ahead = run.state.with_spec(replace(row, done_count=2))  # saved, then killed
        take_over(run.shared, ahead)
        take_over(run.shared, ahead)  # recorded: the records tell it now
    assert [(f.counts[A], f.told) for f in said if isinstance(f, Reconciled)] == [(2, {A: 0})]
