"""store/records/runs.py: which worklog records are one run's, the job's, the killed run's."""

from __future__ import annotations

from pathlib import Path

from ralph.store.records.runs import killed_run, runs, since_reset
from ralph.store.records.worklog import append_worklog, read_worklog


def test_a_run_continued_after_a_kill_is_one_run_and_the_job_begins_at_a_reset(
    tmp_path: Path,
) -> None:
    path = tmp_path / "worklog.jsonl"
    append_worklog((path,), "run_start", agent="a")
    append_worklog((path,), "run_end", exit_code=3)
    append_worklog((path,), "reset")
    append_worklog((path,), "run_start", agent="b")
    append_worklog((path,), "rotation_end", iteration=1)
    killed = killed_run(path)
    assert [r["event"] for r in killed] == ["run_start", "rotation_end"]  # no end: killed
    append_worklog((path,), "run_start", agent="b", continues=True)
    append_worklog((path,), "run_end", exit_code=0)
    records = read_worklog(path)
    assert [len(run) for run in runs(records)] == [2, 4]  # the continued run is one
    assert killed_run(path) == []  # it ended
    assert since_reset(records)[0]["event"] == "run_start"
    assert len(since_reset(records)) == 4
    # control: a run that did not say it continues is a run of its own
    append_worklog((path,), "run_start", agent="c")
    assert [len(run) for run in runs(read_worklog(path))] == [2, 4, 1]
    # and a reset after a killed run ends it: nothing to continue, nothing joins it
    append_worklog((path,), "reset")
    assert killed_run(path) == []
    append_worklog((path,), "run_start", agent="d", continues=True)
    assert [len(run) for run in runs(read_worklog(path))] == [2, 4, 1, 1]
