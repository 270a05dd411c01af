"""The documentation CI users copy from: the GitHub Actions workflow and the exit-code table."""

from __future__ import annotations

import re
import shlex
from pathlib import Path
from typing import Any

import yaml
from typer.testing import CliRunner

from ralph.cli import app
from ralph.errors import ExitCode

REPO = Path(__file__).resolve().parents[1]
WORKFLOW = REPO / "docs" / "github-actions.yml"
README = REPO / "README.md"


def options_of(*command: str) -> set[str]:
    res = CliRunner().invoke(app, [*command, "--help"], terminal_width=200)
    assert res.exit_code == 0, res.output
    return set(re.findall(r"(?<![\w-])(--[a-z][a-z-]*|-[a-zA-Z])\b", res.output))


def steps(workflow: dict[str, Any]) -> list[dict[str, Any]]:
    return [step for job in workflow["jobs"].values() for step in job["steps"]]


def test_workflow_is_valid_and_uses_real_flags() -> None:
    workflow = yaml.safe_load(WORKFLOW.read_text())
    triggers = workflow.get("on", workflow.get(True))  # YAML 1.1 reads a bare `on` as true
    assert "schedule" in triggers and triggers["schedule"][0]["cron"]
    assert "workflow_dispatch" in triggers

    runs = [s["run"] for s in steps(workflow) if "ralph run" in s.get("run", "")]
    assert len(runs) == 1
    argv = shlex.split(runs[0])
    assert argv[:2] == ["ralph", "run"]
    flags = {a.split("=")[0] for a in argv if a.startswith("-")}
    assert flags <= options_of("run"), flags - options_of("run")
    assert "--headless" in flags
    junit = argv[argv.index("--junit") + 1]

    uploads = [
        s for s in steps(workflow) if s.get("uses", "").startswith("actions/upload-artifact")
    ]
    assert len(uploads) == 1
    assert ".ralph/" in uploads[0]["with"]["path"].split()
    assert uploads[0]["with"]["include-hidden-files"] is True  # .ralph/ is hidden
    assert uploads[0]["if"] == "always()"  # a failed run's history matters most

    published = [s for s in steps(workflow) if "junit" in s.get("uses", "")]
    assert len(published) == 1
    assert published[0]["with"]["report_paths"] == junit
    assert published[0]["if"] == "always()"


def test_readme_carries_the_workflow() -> None:
    readme = README.read_text()
    section = readme[readme.index("## Using ralph in CI") :]
    assert f"```yaml\n{WORKFLOW.read_text()}```" in section


def test_readme_exit_code_table_matches_the_contract() -> None:
    readme = README.read_text()
    table = readme[readme.index("### Exit codes of `ralph run`") :]
    table = table[: table.index("\n\n", table.index("| code"))]
    codes = {int(m) for m in re.findall(r"^\| (\d+) \|", table, re.MULTILINE)}
    assert codes == {int(code) for code in ExitCode}


def test_readme_names_every_command_and_run_option() -> None:
    # the manual: the README and the pages under docs/ (where the manual is moving)
    readme = "\n".join(p.read_text() for p in [README, *sorted((REPO / "docs").rglob("*.md"))])
    for command in app.registered_commands:
        name = command.name or (command.callback.__name__ if command.callback else "")
        assert f"`ralph {name}" in readme, name
    for option in options_of("run"):
        if option.startswith("--") and option != "--help":
            assert f"`{option}" in readme, option
