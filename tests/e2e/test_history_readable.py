"""`ralph history N` shows a rotation's log as the agent's adapter reads it: Claude's stream-json
as its text (as current.log showed it live), not raw JSON events; a custom command's plain text
as it printed it."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import pytest

from tests.conftest import FAKES, Project
from tests.platforms import wrapper


@pytest.mark.slow
def test_history_shows_claudes_text_not_its_stream_json(
    git_project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    wrapper(bin_dir, "claude", [sys.executable, str(FAKES / "fake_claude.py")])
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    script = tmp_path / "claude-script.json"
    script.write_text(json.dumps([{"kind": "continue"}]))
    monkeypatch.setenv("FAKE_CLAUDE_SCRIPT", str(script))
    git_project.write({"PROMPT.md": "# goal\n"})
    git_project.commit_all()
    assert git_project.run_subprocess("run", "--agent", "claude", "-n", "1").exit_code == 3
    raw = next((git_project.root / ".ralph" / "history").rglob("001.log")).read_text()
    assert '{"type": "result"' in raw  # the history log keeps the raw output
    shown = git_project.run_subprocess("history", "1")
    assert shown.exit_code == 0, shown
    assert '"type"' not in shown.stdout  # no JSON event
    assert "<ralph>CONTINUE</ralph>" in shown.stdout  # the agent's words
    assert shown.stdout.startswith("# ralph rotation 1 [IMPLEMENT] PROMPT.md agent=claude")
    assert shown.stdout.rstrip().splitlines()[-1].startswith("# ended: signal=CONTINUE")
    last = git_project.run_subprocess("history", "1", "--tail", "2").stdout.splitlines()
    assert last[0].startswith("[result] success") and last[1].startswith("# ended:")


@pytest.mark.slow
def test_history_of_a_custom_command_is_its_plain_text(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    git_project.commit_all()
    agent = git_project.script(
        {"*": [{"say": '{"type": "not an event of ours"}', "signal": "DONE"}]}
    )
    assert git_project.run_subprocess("run", "--agent-command", agent, "-n", "1").exit_code == 3
    shown = git_project.run_subprocess("history", "1").stdout
    assert '{"type": "not an event of ours"}' in shown and "<ralph>DONE</ralph>" in shown
