"""The console script: `ralph status` takes a fast path around Typer, with the same results."""

from __future__ import annotations

import json
from pathlib import Path

from tests.conftest import Project


def test_fast_status_matches_the_typer_command(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n", "specs/a.spec.md": "a\n"})
    cmd = git_project.script({"*": [{"signal": "DONE"}]})
    assert git_project.run("run", "--agent-command", cmd, "-n", "3").exit_code == 3
    for args in (["status", "--json"], ["status"]):
        typer_res = git_project.run(*args)
        fast_res = git_project.run_subprocess(*args)
        assert typer_res.exit_code == fast_res.exit_code == 0
        assert typer_res.stdout == fast_res.stdout
    data = json.loads(git_project.run_subprocess("status", "--json").stdout)
    assert data["iteration"] == 3


def test_fast_status_reports_errors_in_one_line(project: Project, tmp_path: Path) -> None:
    project.write({"PROMPT.md": "x\n", ".ralph/state.json": "{broken"})
    res = project.run_subprocess("status", "-C", str(project.root))
    assert res.exit_code == 1
    assert res.stderr.startswith("error: .ralph/state.json: not valid JSON")
    assert "hint:" in res.stderr
    assert "Traceback" not in res.stderr
