"""Lanes converge: the agent's own edits of its spec in its lane (ticked boxes, notes, which
ralph's IMPLEMENT prompt asks for) are the agent's changes, never a person's modification of the
spec (real CLI, real agent program)."""

from __future__ import annotations

import json

import pytest

from ralph.rules.counts.lanes import lane_name
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project

TODO = "# docs\n- [ ] docs.txt exists\n- [ ] api.txt exists\n"
TICKED = "# docs\n- [x] docs.txt exists\n- [x] api.txt exists\n"


@pytest.mark.slow
def test_an_agent_ticking_its_boxes_in_a_lane_reaches_verified(project: Project) -> None:
    lanes_project(project, {"specs/docs.spec.md": TODO, "specs/api.spec.md": "# api\n"})
    steps = {
        "specs/docs.spec.md": [
            {"write": {"docs.txt": "d\n", "specs/docs.spec.md": TICKED}, "signal": "DONE"},
            {"signal": "DONE"},
        ],
        "specs/api.spec.md": [{"write": {"api.txt": "a\n"}, "signal": "DONE"}, {"signal": "DONE"}],
    }
    cmd = project.script(steps)
    res = project.run(
        "run",
        "--agent-command",
        cmd,
        "--parallel",
        "2",
        "--log-format",
        "json",
        "--max-iterations",
        "12",
    )
    assert res.exit_code == 0, res.stdout + res.stderr
    assert "goes back to 0/3" not in res.stdout
    assert project.counts() == {"specs/api.spec.md": 3, "specs/docs.spec.md": 3}
    assert (project.root / "specs/docs.spec.md").read_text() == TICKED  # merged with its work
    events = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    ended = [e for e in events if e["event"] == "rotation_ended"]
    docs = [e["done_count"] for e in ended if e["spec"] == "specs/docs.spec.md"]
    assert docs[:3] == [1, 2, 3]  # never back to 0/3


def test_a_persons_edit_of_a_spec_in_the_main_tree_still_resets_it(project: Project) -> None:
    """The rule the fix must keep: a person's change of the requirements voids the counter."""
    lanes_project(project, {"specs/docs.spec.md": TODO, "specs/api.spec.md": "# api\n"})
    edit = f"printf '%s' '- [ ] more\\n' >> {project.root}/specs/docs.spec.md"
    steps = {
        "specs/docs.spec.md": [
            {"write": {"docs.txt": "d\n", "specs/docs.spec.md": TICKED}, "signal": "DONE"},
            {"signal": "DONE"},
        ],
        # the person edits the main tree's spec while the api lane runs (once)
        "specs/api.spec.md": [
            {
                "run": f"test -f {project.root}/edited || (touch {project.root}/edited; {edit})",
                "write": {"api.txt": "a\n"},
                "signal": "DONE",
            },
            {"signal": "DONE"},
        ],
    }
    project.write({".gitignore": ".ralph/\nedited\n"})
    project.commit_all("ignore the marker")
    res = project.run(
        "run",
        "--agent-command",
        project.script(steps),
        "--parallel",
        "2",
        "--headless",
        "--max-iterations",
        "6",
    )
    assert "spec changed: specs/docs.spec.md goes back to 0/3" in res.stdout, res.stdout


@pytest.mark.slow
def test_lane_rotations_carry_a_lane_key_in_json_events(project: Project) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"})
    cmd = project.script({"*": [{"say": "working", "signal": "DONE"}]})
    json_ = ("--log-format", "json", "-v")
    res = project.run("run", "--agent-command", cmd, "--parallel", "2", *json_)
    assert res.exit_code == 0, res.stdout + res.stderr
    events = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    kinds = ("rotation_started", "rotation_ended", "agent_output")
    lanes: dict[str, set[str | None]] = {e["spec"]: set() for e in events if e["event"] in kinds}
    for e in events:
        if e["event"] in kinds:
            lanes[e["spec"]].add(e.get("lane"))
    assert lanes["specs/a.spec.md"] == {lane_name("specs/a.spec.md")}
    assert lanes["specs/b.spec.md"] == {lane_name("specs/b.spec.md")}
    assert lanes["(all specs)"] == {None}  # the final verification runs on the merged tree
    project.run("reset")
    res = project.run("run", "--agent-command", cmd, *json_)
    events = [json.loads(x) for x in res.stdout.splitlines() if x.startswith("{")]
    assert not any("lane" in e for e in events)  # one spec at a time: no lanes, no key


@pytest.mark.slow
def test_a_lane_whose_reviews_keep_changing_files_is_escalated(project: Project) -> None:
    """The convergence watch sees lane rotations as it sees one-spec rotations."""
    lanes_project(
        project,
        {
            "specs/a.spec.md": "# a\n",
            "specs/b.spec.md": "# b\n",
            "ralph.yaml": "convergence: {patience: 2}\n",
        },
    )
    steps = {
        "specs/a.spec.md": [
            {"write": {"notes.md": f"rotation {i}\n"}, "signal": "DONE"} for i in range(20)
        ],
        "specs/b.spec.md": [{"write": {"b.txt": "b\n"}, "signal": "DONE"}, {"signal": "DONE"}],
    }
    res = project.run(
        "run",
        "--agent-command",
        project.script(steps),
        "--parallel",
        "2",
        "--headless",
        "-n",
        "20",
    )
    assert res.exit_code == 5, res.stdout + res.stderr
    assert "specs/a.spec.md is not converging" in res.stdout + res.stderr
    escalations = project.worklog("escalation")
    assert [(e["kind"], e["subject"]) for e in escalations] == [("convergence", "specs/a.spec.md")]
