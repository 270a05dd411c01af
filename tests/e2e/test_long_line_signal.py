"""A custom agent whose signal ends a very long line (a wrapper printing one JSON object per
run): the signal counts, through the real CLI, whatever the line's length."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import Project

pytestmark = pytest.mark.slow

AGENT = """\
import json, sys
sys.stdin.read()
print(json.dumps({"transcript": "x" * int(sys.argv[1]), "result": "all done <ralph>DONE</ralph>"}))
"""


@pytest.mark.parametrize("length", [9_000, 3_000_000])
def test_a_signal_at_the_end_of_a_long_line_counts(
    git_project: Project, tmp_path: Path, length: int
) -> None:
    agent = tmp_path / "wrapper.py"
    agent.write_text(AGENT)
    git_project.write({"PROMPT.md": "# goal\n"})
    git_project.commit_all()
    res = git_project.run_subprocess(
        "run", "--agent-command", f"{sys.executable} {agent} {length}", "--headless", "-n", "1"
    )
    assert res.exit_code == 3, res
    assert [e["signal"] for e in git_project.rotation_ends()] == ["DONE"]
    assert git_project.counts() == {"PROMPT.md": 1}
