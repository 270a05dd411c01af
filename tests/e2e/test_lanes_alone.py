"""Lanes fail alone and lose no count (issue 37), through the real CLI and a real agent
program: one lane's refused DONEs pause that lane only while the others go on to verified
(control: every lane refused ends the run, exit 5); a DONE counted while the run ends is in
the end matrix, `ralph status` and the report alike."""

from __future__ import annotations

import json

import pytest

from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project

pytestmark = pytest.mark.slow

REFUSED = """---
checks:
  - name: x is one
    method: external
    config:
      command: grep -q "^x = 1$" x.txt
---
# {name}
"""


def _work(name: str) -> list[dict[str, object]]:
    """Its file written, then DONE until 3/3: an honest agent."""
    return [{"write": {f"{name}.txt": f"{name}\n"}, "signal": "DONE"}, {"signal": "DONE"}]


def _worklog(project: Project, event: str) -> list[dict[str, object]]:
    lines = (project.root / ".ralph" / "worklog.jsonl").read_text().splitlines()
    return [rec for rec in map(json.loads, lines) if rec.get("event") == event]


def test_one_lane_s_refusals_pause_that_lane_only(project: Project) -> None:
    lanes_project(
        project,
        {
            "specs/a.spec.md": REFUSED.format(name="a"),  # its DONE never passes its check
            "specs/b.spec.md": "# b\n",
            "specs/c.spec.md": "# c\n",
        },
    )
    steps = {
        "specs/a.spec.md": [{"signal": "DONE"}],
        **{f"specs/{n}.spec.md": _work(n) for n in "bc"},
    }
    res = project.run(
        "run", "--agent-command", project.script(steps), "--parallel", "3", "--headless"
    )
    assert res.exit_code == 5, res.stdout + res.stderr
    assert "on specs/a.spec.md's lane (circuit breaker open)" in res.stdout
    counts = project.counts()
    assert (counts["specs/b.spec.md"], counts["specs/c.spec.md"]) == (3, 3)  # went on
    assert (project.root / "b.txt").exists() and (project.root / "c.txt").exists()
    opened = [r for r in _worklog(project, "breaker") if r["after"] == "OPEN"]
    assert [r.get("lane") for r in opened] == ["specs/a.spec.md"]
    refused = [r for r in project.rotation_ends() if r["spec"] == "specs/a.spec.md"]
    assert [r["signal"] for r in refused] == ["REFUSED"] * 3  # paused at its threshold
    assert [r["subject"] for r in _worklog(project, "escalation")] == ["specs/a.spec.md"]


def test_when_every_lane_is_refused_the_run_ends_on_the_breaker(project: Project) -> None:
    """The control: no lane can go on: asked once (headless: abort), exit 5."""
    lanes_project(project, {f"specs/{n}.spec.md": REFUSED.format(name=n) for n in "ab"})
    steps = {f"specs/{n}.spec.md": [{"signal": "DONE"}] for n in "ab"}
    res = project.run(
        "run", "--agent-command", project.script(steps), "--parallel", "2", "--headless"
    )
    assert res.exit_code == 5, res.stdout + res.stderr
    assert len(_worklog(project, "escalation")) == 1
    opened = [r.get("lane") for r in _worklog(project, "breaker") if r["after"] == "OPEN"]
    assert sorted(opened) == ["specs/a.spec.md", "specs/b.spec.md"]  # type: ignore[type-var]
    assert len(project.rotation_ends()) == 6  # three refusals a lane, then each paused


def test_a_done_counted_while_the_run_ends_is_in_every_view(project: Project) -> None:
    """a does not converge (a person's call, headless: abort) while b's lane still works; b's
    agent says DONE once the escalation is recorded (an event, not a time). The run's end is
    said after b's DONE is counted: the end matrix, `ralph status` and the report say 1/3."""
    lanes_project(project, {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"})
    worklog = project.root / ".ralph" / "worklog.jsonl"
    wait = f"until grep -q '\"escalation\"' {worklog}; do sleep 0.05; done"
    steps = {
        "specs/a.spec.md": [
            {"write": {"a.txt": "1\n"}, "signal": "DONE"},
            {"write": {"a.txt": "2\n"}, "signal": "DONE"},  # its REVIEW changes files again
        ],
        "specs/b.spec.md": [{"run": wait, "write": {"b.txt": "b\n"}, "signal": "DONE"}],
    }
    project.write({"ralph.yaml": "convergence: {patience: 1}\n"})
    project.commit_all("patience")
    report = project.root.parent / "report.json"
    res = project.run(
        *("run", "--agent-command", project.script(steps), "--parallel", "2", "--headless"),
        *("--log-format", "json", "--report", f"json={report}"),
    )
    assert res.exit_code == 5, res.stdout + res.stderr
    events = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    assert events[-1]["event"] == "run_ended"  # nothing of the run is said after its end
    b = "specs/b.spec.md"
    ended = [e["done_count"] for e in events if e["event"] == "rotation_ended" and e["spec"] == b]
    assert ended == [1]
    assert {row["path"]: row["done_count"] for row in events[-1]["matrix"]}[b] == 1
    status = json.loads(project.run("status", "--json").stdout)
    assert {s["path"]: s["done_count"] for s in status["specs"]}[b] == 1
    specs = json.loads(report.read_text())["specs"]
    assert {s["path"]: s["done_count"] for s in specs}[b] == 1
