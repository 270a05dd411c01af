"""Judges cite evidence: the citation lines of a judge's answer are read, each cited file and
line is checked, and a criterion without valid evidence is named; the pool's judge is of another
vendor than the coder when it can be."""

from __future__ import annotations

import json
import sys

from tests.conftest import FAKES, Project


def test_the_judge_comes_from_another_vendor_when_the_pool_has_one(git_project: Project) -> None:
    p = git_project
    p.write(
        {
            "PROMPT.md": "---\nchecks:\n  - method: semantic\n"
            "    config: {check_for: [x]}\n---\n# goal\n"
        }
    )
    agents = []
    for name, model in (
        ("alpha", "claude-sonnet-4"),
        ("beta", "claude-opus-4"),
        ("gamma", "gpt-5"),
    ):
        script = p.root.parent / f"{name}.json"
        script.write_text(
            json.dumps({"*": [{"signal": "DONE"}], "JUDGE": f"NOT_VERIFIED: by {name}"})
        )
        command = [sys.executable, str(FAKES / "scripted_agent.py"), str(script)]
        agents.append({"name": name, "command": command, "model": model})
    p.write({"ralph.yaml": json.dumps({"agents": agents})})
    res = p.run("run", "-n", "1")
    assert res.exit_code == 3, res
    # alpha (Anthropic) coded: gamma (OpenAI) judged, though beta comes next in the pool
    assert "NOT_VERIFIED: by gamma" in p.rotation_ends()[0]["note"]
