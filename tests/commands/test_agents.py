"""commands/agents.py: `ralph agents`."""

from __future__ import annotations

from pathlib import Path

import pytest

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


def test_agents_with_a_bad_ralph_yaml_is_one_line(project: Project, only_claude: Path) -> None:
    project.write({"ralph.yaml": "agent:\n  model: [x]\n"})
    result = project.run("agents")
    assert result.exit_code == 1
    assert result.stderr.startswith("error: ralph.yaml: agent.model:")
