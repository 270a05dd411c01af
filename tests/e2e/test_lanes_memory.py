"""Lanes keep the run's memory (issue 28): an agent in a lane reads and writes its handoff, the
guardrails and the question file at the paths its prompt names, from its own working folder,
and what it writes reaches the next prompt of its spec in any lane or in the main tree, with
the same redaction; the lane's copy is never committed. An agent that relies on its handoff
converges in a lane in as many rotations as one spec at a time."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from ralph.rules.counts.spec import spec_slug
from tests.conftest import FAKES, Project
from tests.e2e.test_lanes import lanes_project

pytestmark = pytest.mark.slow

SPECS = {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"}
STEPPER = f"{sys.executable} {FAKES / 'stepper.py'}"
KEY = "sk-ant-" + "k3y" * 10  # the shape of a provider's key: redacted wherever it is written


def stepped(project: Project, *args: str, **env: str) -> tuple[int, list[dict[str, Any]]]:
    calls = project.root.parent / "calls.jsonl"
    project.monkeypatch.setenv("CALLS", str(calls))
    for name, value in env.items():
        project.monkeypatch.setenv(name, value)
    res = project.run("run", "--agent-command", STEPPER, "--headless", "-n", "40", *args)
    lines = calls.read_text().splitlines() if calls.exists() else []
    print(res.stdout, res.stderr)
    return res.exit_code, [json.loads(line) for line in lines]


def per_spec(calls: list[dict[str, Any]], key: str) -> dict[str, list[Any]]:
    found: dict[str, list[Any]] = {p: [] for p in SPECS}
    for call in calls:
        found[call["spec"]].append(call[key])
    return found


@pytest.fixture
def sequential(tmp_path_factory: pytest.TempPathFactory, project: Project) -> dict[str, int]:
    """How many rotations each spec takes one spec at a time, in a project of its own."""
    other = Project(tmp_path_factory.mktemp("sequential") / "proj", project.monkeypatch)
    other.root.mkdir()
    lanes_project(other, SPECS)
    code, calls = stepped(other)
    assert code == 0
    assert per_spec(calls, "did") == {p: [1, 2, 3, 0, 0, 0] for p in SPECS}  # no step repeated
    return {p: len(v) for p, v in per_spec(calls, "did").items()}


def test_a_lane_converges_in_as_many_rotations_as_one_spec_at_a_time(
    project: Project, sequential: dict[str, int]
) -> None:
    lanes_project(project, SPECS)
    code, calls = stepped(project, "--parallel", "2")
    assert code == 0
    did = per_spec(calls, "did")
    assert {p: [d for d in v if d] for p, v in did.items()} == {p: [1, 2, 3] for p in SPECS}
    # no step repeated, and no more rotations than one spec at a time but for one review that
    # a merge may ask of a spec already at 3/3 (when the other lane's work arrives after it)
    for spec, count in sequential.items():
        assert count <= len(did[spec]) <= count + 1, (spec, did[spec])
    assert all("/.ralph/worktrees/" in c["cwd"] for c in calls)  # each in its lane
    # each step read the lessons its spec's earlier steps added: the guardrails are the run's
    for spec, seen in per_spec(calls, "lessons").items():
        stem = Path(spec).name.split(".")[0]
        for step in (2, 3):
            assert f"- lesson: {stem} step {step - 1} " in seen[step - 1]
    guardrails = (project.root / ".ralph" / "guardrails.md").read_text()
    for stem in "ab":  # every lane's lessons, none lost to the other's
        for step in (1, 2, 3):
            assert f"- lesson: {stem} step {step} \n" in guardrails
    handoff = project.root / ".ralph" / "handoffs" / f"{spec_slug('specs/a.spec.md')}.md"
    assert "step 3 done" in handoff.read_text()
    # the lanes' copies of the notes were never committed, nor merged into the user's branch
    names = project.git("log", "--all", "--name-only", "--format=").split()
    assert not [n for n in names if n.startswith(".ralph")], names
    assert project.git("status", "--porcelain") == ""


def test_what_a_lanes_agent_writes_in_its_notes_is_redacted(project: Project) -> None:
    lanes_project(project, SPECS)
    # the agent copies a key from its environment into its handoff and its guardrails lesson
    code, calls = stepped(project, "--parallel", "2", "--max-iterations", "2", NOTE=KEY)
    assert code == 3
    assert [c["did"] for c in calls] == [1, 1]
    memory = project.root / ".ralph"
    written = [memory / "guardrails.md", *(memory / "handoffs").iterdir()]
    assert len(written) == 3
    for path in written:
        text = path.read_text()
        assert KEY not in text and "step 1" in text, path


def test_a_question_asked_in_a_lane_is_the_runs_and_its_answer_reaches_the_lane(
    project: Project,
) -> None:
    lanes_project(project, SPECS)
    code, asked = stepped(project, "--parallel", "2", ASK="1")
    assert code == 5
    assert len(asked) == 2  # both lanes asked, each at its first rotation
    question = (project.root / ".ralph" / "question.md").read_text()
    assert "# a: may I use the network?" in question and "# b: may I" in question  # both kept
    (project.root / ".ralph" / "answer.md").write_text("yes\n")
    project.monkeypatch.delenv("ASK")
    code, calls = stepped(project, "--parallel", "2")
    assert code == 0
    assert any(call["answered"] for call in calls[len(asked) :])  # the answer reached a lane
    assert not (project.root / ".ralph" / "question.md").exists()  # delivered, archived
