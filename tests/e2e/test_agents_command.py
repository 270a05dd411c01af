"""`ralph agents [--json]`: every built-in agent, installed or not, its version and command."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.agents.registry import registry
from tests.agent_helpers import fake_cli
from tests.conftest import Project


@pytest.fixture
def only_claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A PATH holding a `claude` that prints its version, and a `codex` that fails."""
    bin_dir = tmp_path / "bin"
    fake_cli(bin_dir, "claude", monkeypatch, stdout=b"2.1.197 (Claude Code)\n")
    fake_cli(bin_dir, "codex", monkeypatch, stderr=b"boom\n", exit_code=3)
    monkeypatch.setenv("PATH", str(bin_dir))
    return bin_dir


def test_agents_json_lists_every_built_in_agent(project: Project, only_claude: Path) -> None:
    result = project.run("agents", "--json")
    assert result.exit_code == 0, result
    rows = {row["name"]: row for row in json.loads(result.stdout)["agents"]}
    assert list(rows) == list(registry())
    claude = rows["claude"]
    assert claude["installed"] is True
    assert claude["version"] == "2.1.197"
    assert claude["path"] == str(only_claude / "claude")
    assert claude["command"] == (
        f"{only_claude / 'claude'} -p --output-format stream-json --verbose "
        "--dangerously-skip-permissions < .ralph/prompt.md"
    )
    assert claude["env"]["DISABLE_AUTOUPDATER"] == "1"
    assert rows["codex"]["installed"] is True and rows["codex"]["version"] is None
    gemini = rows["gemini"]
    assert (gemini["installed"], gemini["path"], gemini["version"]) == (False, None, None)
    assert gemini["install"] == "npm install -g @google/gemini-cli"
    assert gemini["command"].startswith("gemini --output-format stream-json --yolo")
    assert rows["demo"]["installed"] is True


def test_agents_text_says_installed_or_how_to_install(project: Project, only_claude: Path) -> None:
    result = project.run("agents")
    assert result.exit_code == 0, result
    lines = result.stdout.splitlines()
    assert lines[0].startswith("claude    Claude Code: installed 2.1.197")
    assert "  $ " in lines[1] and "stream-json" in lines[1]
    assert any(
        line.startswith(
            "pi        pi: not installed (npm install -g @mariozechner/pi-coding-agent)"
        )
        for line in lines
    )


def test_agents_shows_the_model_and_args_of_ralph_yaml(project: Project, only_claude: Path) -> None:
    project.write(
        {"ralph.yaml": "agent:\n  name: claude\n  model: opus\n  args: [--max-turns, '5']\n"}
    )
    rows = {r["name"]: r for r in json.loads(project.run("agents", "--json").stdout)["agents"]}
    assert rows["claude"]["command"].endswith(
        "--dangerously-skip-permissions --model opus --max-turns 5 < .ralph/prompt.md"
    )
    assert rows["claude"]["model"] == "opus"
    assert "--max-turns" not in rows["codex"]["command"]  # configured for claude only


def test_agents_names_agent_env_without_its_values(project: Project, only_claude: Path) -> None:
    project.write(
        {
            "ralph.yaml": "agent:\n  name: claude\n"
            "  env: {IS_SANDBOX: '1', ANTHROPIC_API_KEY: s3cr3t}\n"
        }
    )
    result = project.run("agents", "--json")
    assert result.exit_code == 0, result
    rows = {r["name"]: r for r in json.loads(result.stdout)["agents"]}
    assert rows["claude"]["agent_env"] == ["ANTHROPIC_API_KEY", "IS_SANDBOX"]
    assert rows["demo"]["agent_env"] == []
    text = project.run("agents").stdout
    assert "agent.env sets ANTHROPIC_API_KEY, IS_SANDBOX" in text
    assert "s3cr3t" not in result.stdout + text  # never a value
