"""`model:` and `args:` in ralph.yaml and `--model` reach the agent's command line."""

from __future__ import annotations

import json
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

from ralph.agents.command import CommandAgent
from ralph.agents.registry import registry
from tests.agent_helpers import fake_cli, fixture
from tests.conftest import Project
from tests.fakes.plugins import add_agent


def calls(record: Path) -> list[dict[str, object]]:
    return [json.loads(line) for line in record.read_text().splitlines()]


@pytest.fixture
def claude(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fake_cli(
        tmp_path / "bin", "claude", monkeypatch, stdout=fixture("claude-write-done.stdout")
    )


def test_model_and_args_from_ralph_yaml(git_project: Project, claude: Path) -> None:
    git_project.write(
        {
            "PROMPT.md": "# goal\n",
            "ralph.yaml": "agent:\n  name: claude\n  model: opus\n  args: [--max-turns, '9']\n",
        }
    )
    assert git_project.run("run", "-n", "1").exit_code == 3
    (call,) = calls(claude)
    assert call["argv"] == [
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--dangerously-skip-permissions",
        "--model",
        "opus",
        "--max-turns",
        "9",
    ]


def test_model_flag_overrides_the_file(git_project: Project, claude: Path) -> None:
    git_project.write(
        {"PROMPT.md": "# goal\n", "ralph.yaml": "agent:\n  name: claude\n  model: opus\n"}
    )
    assert git_project.run("run", "-n", "1", "--model", "haiku").exit_code == 3
    (call,) = calls(claude)
    argv = call["argv"]
    assert isinstance(argv, list)
    assert argv[-2:] == ["--model", "haiku"]


def test_the_files_model_and_args_do_not_follow_another_agent(
    git_project: Project, claude: Path
) -> None:
    git_project.write(
        {
            "PROMPT.md": "# goal\n",
            "ralph.yaml": "agent:\n  command: other-agent\n  model: x\n  args: [--weird]\n",
        }
    )
    assert git_project.run("run", "-n", "1", "--agent", "claude").exit_code == 3
    (call,) = calls(claude)
    argv = call["argv"]
    assert isinstance(argv, list)
    assert "--weird" not in argv and "--model" not in argv


def test_custom_command_gets_args_and_model_in_the_environment(
    git_project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = fake_cli(tmp_path / "bin", "my-agent", monkeypatch, stdout=b"<ralph>DONE</ralph>\n")
    git_project.write(
        {
            "PROMPT.md": "# goal\n",
            "ralph.yaml": "agent:\n  command: my-agent --yes\n  model: m1\n  args: [--fast]\n",
        }
    )
    assert git_project.run("run", "-n", "1").exit_code == 3
    (call,) = calls(record)
    assert call["argv"] == ["--yes", "--fast"]
    env = call["env"]
    assert isinstance(env, dict)
    assert env["RALPH_MODEL"] == "m1"


def test_bad_args_is_one_line_naming_the_key(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "ralph.yaml": "agent:\n  name: claude\n  args: 3\n"})
    result = project.run("run", "-n", "1")
    assert result.exit_code == 1
    assert "ralph.yaml: agent.args:" in result.stderr


def test_unknown_agent_lists_the_built_in_ones(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    result = project.run("run", "--agent", "clod")
    assert result.exit_code == 1
    assert "unknown agent: clod" in result.stderr
    assert f"built-in agents: {', '.join(registry())}" in result.stderr


def test_a_missing_cli_says_how_to_install_it(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    monkeypatch.setenv("PATH", str(project.root))
    result = project.run("run", "--agent", "claude")
    assert result.exit_code == 1
    assert "Claude Code not found: no claude on PATH" in result.stderr
    assert "npm install -g @anthropic-ai/claude-code" in result.stderr


class _SaysDone(CommandAgent):
    """An agent CLI ralph did not know: a program that writes a file and says DONE."""

    key = "says-done"

    def __init__(
        self,
        env: Mapping[str, str] | None = None,
        model: str | None = None,
        args: Sequence[str] = (),
    ) -> None:
        script = "open('made.txt', 'w').write('x'); print('<ralph>DONE</ralph>')"
        super().__init__(self.key, [sys.executable, "-c", script, *args], env, model)


def test_one_registry_entry_is_all_a_new_agent_needs(
    git_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    add_agent(monkeypatch, _SaysDone)
    git_project.write({"PROMPT.md": "# goal\n", "ralph.yaml": "agent: says-done\n"})
    assert git_project.run("run", "-n", "1").exit_code == 3
    assert (git_project.root / "made.txt").exists()
    result = git_project.run("run", "-n", "1", "--agent", "nope")
    assert (
        "built-in agents: claude, codex, gemini, cursor, opencode, pi, aider, demo, says-done"
        in (result.stderr)
    )
