"""The right model for each role: `models:` per mode (implement, review, verify, judge) falling
back to `model:`, on the CLI's own command line or in RALPH_MODEL; a verifier and a judge of
another vendor than the coder; `ralph agents` shows the command line per mode."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.agent_helpers import fake_cli
from tests.conftest import FAKES, Project


def calls(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines()]


@pytest.fixture
def claude_bin(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    wrapper = bin_dir / "claude"
    wrapper.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{FAKES / "fake_claude.py"}" "$@"\n')
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    script = tmp_path / "claude.json"
    monkeypatch.setenv("FAKE_CLAUDE_SCRIPT", str(script))
    return script


def test_the_model_of_each_mode_reaches_claude_codes_command_line(
    git_project: Project, claude_bin: Path
) -> None:
    claude_bin.write_text(json.dumps([{"kind": "done"}]))
    git_project.write(
        {
            "PROMPT.md": "goal\n",
            "ralph.yaml": "final_verification: false\nagent:\n  name: claude\n  model: sonnet\n"
            "  models: {review: haiku}\n",
        }
    )
    res = git_project.run("run", "--plain")
    assert res.exit_code == 0, res
    argvs = [c["argv"] for c in calls(claude_bin.with_name("claude.json.calls.jsonl"))]
    models = [a[a.index("--model") + 1] for a in argvs]
    # one IMPLEMENT rotation (the strong model), then the two REVIEWs (the cheap one)
    assert models == ["sonnet", "haiku", "haiku"]


def test_a_custom_command_gets_each_modes_model_in_ralph_model(git_project: Project) -> None:
    script = git_project.root.parent / "agent.json"
    script.write_text(json.dumps({"*": [{"signal": "DONE"}]}))
    command = [sys.executable, str(FAKES / "scripted_agent.py"), str(script)]
    git_project.write(
        {
            "PROMPT.md": "goal\n",
            "ralph.yaml": json.dumps(
                {
                    "agent": {
                        "command": command,
                        "models": {"implement": "big", "review": "small", "verify": "judge-x"},
                    }
                }
            ),
        }
    )
    res = git_project.run("run", "--plain")
    assert res.exit_code == 0, res
    seen = [(c["mode"], c["model"]) for c in calls(script.with_name("agent.json.calls.jsonl"))]
    assert seen == [
        ("IMPLEMENT", "big"),
        ("REVIEW", "small"),
        ("REVIEW", "small"),
        ("VERIFY", "judge-x"),
    ]


def test_the_judge_and_the_verifier_prefer_another_vendor(git_project: Project) -> None:
    """Three agents, the coder on Anthropic's model: the judge and the verifier are the agent
    on OpenAI's, not the next one of the pool (also Anthropic's)."""
    agents = []
    scripts = {}
    for name, model in (("coder", "claude-opus"), ("cousin", "claude-haiku"), ("rival", "gpt-5")):
        script = git_project.root.parent / f"{name}.json"
        script.write_text(json.dumps({"*": [{"signal": "DONE"}], "JUDGE": "VERIFIED"}))
        scripts[name] = script
        command = [sys.executable, str(FAKES / "scripted_agent.py"), str(script)]
        agents.append({"name": name, "command": command, "model": model})
    git_project.write(
        {
            "PROMPT.md": "---\nchecks:\n  - method: semantic\n    config: {check_for: [x]}\n"
            "---\n# goal\n",
            "ralph.yaml": json.dumps(
                {"agents": agents, "pool": {"rotation": "fallback", "fresh_eyes": False}}
            ),
        }
    )
    res = git_project.run("run", "--plain")
    assert res.exit_code == 0, res
    judged = {n: s.with_name(s.name + ".calls.jsonl.judge") for n, s in scripts.items()}
    assert judged["rival"].exists() and not judged["cousin"].exists()
    assert not judged["coder"].exists()
    rival_modes = [c["mode"] for c in calls(scripts["rival"].with_name("rival.json.calls.jsonl"))]
    assert rival_modes == ["VERIFY"]


def test_ralph_agents_prints_the_command_line_per_mode(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    fake_cli(bin_dir, "claude", monkeypatch, stdout=b"2.1.197 (Claude Code)\n")
    monkeypatch.setenv("PATH", str(bin_dir))
    project.write(
        {
            "ralph.yaml": "agents:\n  - name: claude\n    model: opus\n"
            "    models: {review: haiku, judge: sonnet}\n  - codex\n"
        }
    )
    res = project.run("agents", "--json")
    assert res.exit_code == 0, res
    rows = {r["name"]: r for r in json.loads(res.stdout)["agents"]}
    modes = rows["claude"]["modes"]
    assert {m: v["model"] for m, v in modes.items()} == {
        "implement": "opus",
        "review": "haiku",
        "verify": "opus",
        "judge": "sonnet",
    }
    assert "--model haiku" in modes["review"]["command"]
    assert rows["codex"]["modes"] is None
    text = project.run("agents").stdout
    assert any(
        line.strip().startswith("review    $ ") and "--model haiku" in line
        for line in text.splitlines()
    ), text
