"""run/recorder.py: the one subscriber that writes what a run did (the worklog, progress.md,
errors.log, the handoff notes), from a run played in-process through run_loop with the scripted
agent behind CommandAgent's seam."""

from __future__ import annotations

import json

from ralph.rules.spec import spec_slug
from ralph.run import recorder  # noqa: F401 -- the subscriber under test, run by run_loop
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project
from tests.run.test_loop import play

CRASH = {"say": "Traceback: boom", "stderr": "the stack", "exit": 1}


def test_each_rotation_is_recorded_once_in_order(project: Project) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    write = {"write": {"a.txt": "x\n"}, "signal": "DONE"}
    play(project, {"*": [write, {"signal": "DONE"}]}, yaml="final_verification: false\n")
    records = project.worklog()
    kinds = [r["event"] for r in records if r["event"] in ("run_start", "rotation_end", "run_end")]
    assert kinds == ["run_start", "rotation_end", "rotation_end", "rotation_end", "run_end"]
    ends = [r for r in records if r["event"] == "rotation_end"]
    assert [(r["spec"], r["done_count"], r["changed"]) for r in ends] == [
        ("specs/a.spec.md", 1, ["a.txt"]),
        ("specs/a.spec.md", 2, []),
        ("specs/a.spec.md", 3, []),
    ]
    progress = (project.root / ".ralph" / "progress.md").read_text()
    assert "[IMPLEMENT] specs/a.spec.md: DONE, 1 file(s) changed, 1/3" in progress
    # the worklog's copy in .ralph/ says the same as ralph's own record
    copy = (project.root / ".ralph" / "worklog.jsonl").read_text().splitlines()
    assert [json.loads(line)["event"] for line in copy] == [r["event"] for r in records]


def test_a_failed_rotation_reaches_errors_log_and_the_handoff_with_its_stderr(
    project: Project,
) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    play(project, {"*": [CRASH, {"signal": "DONE"}]}, yaml="final_verification: false\n")
    errors = (project.root / ".ralph" / "errors.log").read_text()
    assert "rotation 1 specs/a.spec.md [IMPLEMENT] failed:" in errors
    handoff = project.root / ".ralph" / "handoffs" / f"{spec_slug('specs/a.spec.md')}.md"
    note = handoff.read_text()
    assert "rotation 1 failed (exit code 1: the stack)" in note
    assert "The last lines it wrote on stderr:\n\n    the stack" in note  # for the next rotation
    # the control: the rotations that succeeded wrote none
    assert errors.count("rotation ") == 1
