"""run/recorder.py: the one subscriber that writes what a run did (the worklog, progress.md,
errors.log, the handoff notes), from a run played in-process through run_loop with the scripted
agent behind CommandAgent's seam."""

from __future__ import annotations

import json
from dataclasses import asdict, astuple
from pathlib import Path

from ralph.rules.counts.spec import spec_slug
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


def test_a_fact_s_worklog_line_is_its_fields_so_a_field_added_to_it_is_recorded(
    tmp_path: Path,
) -> None:
    """run/rec.LINES: the line of such a fact is its leading fields, then every field of
    the dataclass in its order (one schema); a fact with a field more than today's shows it
    in its line with nothing copied by hand. Control: a fact the table does not name (an
    agent's output) writes no line."""
    from dataclasses import fields, make_dataclass

    from ralph.run.events import AgentOutput
    from ralph.run.facts import LaneMerged, VerificationStarted
    from ralph.run.recorder import LINES, Recorder
    from ralph.store.disk.workspace import Workspace

    ws = Workspace(tmp_path)
    ws.ensure()
    rec = Recorder(ws, [], "round-robin")
    merged = LaneMerged("specs/a.spec.md", "a-1", "main", True, ("specs/b.spec.md",))
    rec.handle(merged)
    rec.handle(VerificationStarted(1, 7, "codex"))
    lane, started = ({k: v for k, v in r.items() if k != "ts"} for r in rec.records)
    assert lane == {"event": "lane_merge", **asdict(merged), "downgraded": ["specs/b.spec.md"]}
    assert list(started) == ["event", "transition", "attempt", "iteration", "agent"]
    wider = make_dataclass("Wider", [(f.name, f.type) for f in fields(LaneMerged)] + [("why", str)])
    LINES[wider] = ("lane_merge", {})
    try:
        rec.handle(wider(*astuple(merged), "added"))
    finally:
        del LINES[wider]
    assert rec.records[-1]["why"] == "added"  # the new field, in the line
    count = len(rec.records)
    rec.handle(AgentOutput("stdout", ("hi",), "specs/a.spec.md", 1))
    assert len(rec.records) == count
