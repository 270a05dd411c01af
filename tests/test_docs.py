"""The documentation users copy from: the GitHub Actions workflow, the exit-code table, the
commands; and the README kept a front door (short, pointing into docs/)."""

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
DOCS = REPO / "docs"
README_MAX_LINES = 250


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
    assert argv[argv.index("--output") + 1] == "plain"
    reports = [argv[i + 1] for i, a in enumerate(argv) if a == "--report"]
    junit = next(r.removeprefix("junit=") for r in reports if r.startswith("junit="))

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


def test_the_ci_guide_carries_the_workflow() -> None:
    guide = (DOCS / "how-to" / "ci.md").read_text()
    assert f"```yaml\n{WORKFLOW.read_text()}```" in guide


def test_exit_code_table_matches_the_contract() -> None:
    page = (DOCS / "reference" / "exit-codes.md").read_text()
    table = page[page.index("# Exit codes of `ralph run`") :]
    table = table[: table.index("\n\n", table.index("| code"))]
    codes = {int(m) for m in re.findall(r"^\| (\d+) \|", table, re.MULTILINE)}
    assert codes == {int(code) for code in ExitCode}


def test_the_commands_page_names_every_command_and_run_option() -> None:
    readme = (DOCS / "reference" / "commands.md").read_text()
    for command in app.registered_commands:
        name = command.name or (command.callback.__name__ if command.callback else "")
        assert f"`ralph {name}" in readme, name
    for option in options_of("run"):
        if option.startswith("--") and option != "--help":
            assert f"`{option}" in readme, option


def test_the_readme_is_a_front_door() -> None:
    readme = README.read_text()
    assert len(readme.splitlines()) <= README_MAX_LINES
    # a quick start with a real agent, not only a placeholder command
    assert "ralph run --agent claude" in readme
    # every exit code of the contract, in one line each
    summary = readme[readme.index("## Exit codes of `ralph run`") :].split("\n## ")[0]
    assert {int(m) for m in re.findall(r"(?<![\w.])(\d+)\s[a-z]", summary)} == set(
        map(int, ExitCode)
    )
    # every link into docs/ names a page that exists
    for target in re.findall(r"\]\((docs/[^)#]+)", readme):
        assert (REPO / target).is_file(), target
