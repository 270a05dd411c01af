"""The command line, end to end: init, run, status, reset, bad input and exit codes.

Everything goes through the real CLI (in-process with CliRunner, or as a real process where
signals and a second live process matter) against a real project folder and the scripted agent
(tests/fakes/scripted_agent.py: in-process through `Project.fake`, as a real program where the
process matters). Nothing of ralph's own is mocked.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ralph import __version__
from ralph.rules.counts.spec import PROMPT_TEMPLATE
from ralph.store.disk.workspace import GUARDRAILS_TEMPLATE
from tests.conftest import Project, Result

GITIGNORE_BLOCK = "# ralph's state (see ralph status)\n.ralph/\n"


def status_json(project: Project) -> dict[str, Any]:
    res = project.run("status", "--json")
    assert res.exit_code == 0, res
    data = json.loads(res.stdout)
    assert isinstance(data, dict)
    return data


def spec_row(data: dict[str, Any], path: str) -> dict[str, Any]:
    rows = [s for s in data["specs"] if s["path"] == path]
    assert len(rows) == 1, data
    row = rows[0]
    assert isinstance(row, dict)
    return row


def assert_one_error(res: Result, *needles: str, code: int = 1) -> str:
    """Exit `code`, no traceback, exactly one `error:` line on stderr containing every needle."""
    assert res.exit_code == code, res
    assert "Traceback" not in res.stderr, res
    assert "Traceback" not in res.stdout, res
    errors = [line for line in res.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, res
    for needle in needles:
        assert needle in errors[0], (needle, res)
    return errors[0]


def test_version_prints_the_version(project: Project) -> None:
    res = project.run("--version")
    assert res.exit_code == 0, res
    assert res.stdout.strip() == f"ralph {__version__}"


def test_help_lists_every_command(project: Project) -> None:
    res = project.run("--help")
    assert res.exit_code == 0, res
    for command in ("init", "run", "status", "reset"):
        assert re.search(rf"^\s+{command}\s", res.stdout, re.MULTILINE), (command, res.stdout)
    assert "--version" in res.stdout


def test_no_arguments_shows_help_not_a_traceback(project: Project) -> None:
    res = project.run()
    assert "Traceback" not in res.stderr
    assert "run" in res.stdout + res.stderr
    assert "status" in res.stdout + res.stderr


def test_init_creates_the_state_folder_and_a_prompt_template(project: Project) -> None:
    res = project.run("init")
    assert res.exit_code == 0, res
    ralph = project.root / ".ralph"
    assert (ralph / "handoffs").is_dir()
    assert (ralph / "history").is_dir()
    assert list((ralph / "handoffs").iterdir()) == []
    assert list((ralph / "history").iterdir()) == []
    assert (ralph / "guardrails.md").read_text() == GUARDRAILS_TEMPLATE
    state = project.state()
    assert state["schema_version"] == 1
    assert state["iteration"] == 0
    assert state["specs"] == []
    assert (project.root / "PROMPT.md").read_text() == PROMPT_TEMPLATE
    assert (project.root / ".gitignore").read_text() == GITIGNORE_BLOCK
    assert "created PROMPT.md" in res.stdout
    assert res.stderr == ""


def test_init_then_status_says_the_template_is_still_to_fill_in(project: Project) -> None:
    # an untouched template is no spec (ralph run does not run it either)
    assert project.run("init").exit_code == 0
    res = project.run("status", "--json")
    assert res.exit_code == 1, res
    assert res.stderr.startswith(
        "error: PROMPT.md is still the template `ralph init` wrote: nothing to build yet\n"
    )
    project.write({"PROMPT.md": "# goal\n"})
    data = status_json(project)
    assert [s["path"] for s in data["specs"]] == ["PROMPT.md"]
    assert spec_row(data, "PROMPT.md")["done_count"] == 0


@pytest.mark.parametrize(
    "existing",
    [
        {"specs/x.spec.md": "# x\n"},
        {"specs/deep/er/y.spec.md": "# y\n"},
        {"RALPH_TASK.md": "# task\n"},
    ],
)
def test_init_writes_no_template_when_a_spec_exists(
    project: Project, existing: dict[str, str]
) -> None:
    project.write(existing)
    res = project.run("init")
    assert res.exit_code == 0, res
    assert not (project.root / "PROMPT.md").exists()
    assert "PROMPT.md" not in res.stdout


def test_init_never_overwrites_an_existing_prompt(project: Project) -> None:
    project.write({"PROMPT.md": "my own goal\n"})
    res = project.run("init")
    assert res.exit_code == 0, res
    assert (project.root / "PROMPT.md").read_text() == "my own goal\n"
    res = project.run("init", "--force")
    assert res.exit_code == 0, res
    assert (project.root / "PROMPT.md").read_text() == "my own goal\n"


def test_init_appends_to_a_gitignore_without_trailing_newline(project: Project) -> None:
    project.write({".gitignore": "node_modules\n*.pyc"})
    assert project.run("init").exit_code == 0
    assert (project.root / ".gitignore").read_text() == "node_modules\n*.pyc\n" + GITIGNORE_BLOCK


def test_init_appends_to_a_gitignore_with_trailing_newline(project: Project) -> None:
    project.write({".gitignore": "dist/\n"})
    assert project.run("init").exit_code == 0
    assert (project.root / ".gitignore").read_text() == "dist/\n" + GITIGNORE_BLOCK


@pytest.mark.parametrize("entry", [".ralph/", ".ralph", "/.ralph/", "/.ralph"])
def test_init_does_not_add_ralph_to_gitignore_twice(project: Project, entry: str) -> None:
    project.write({".gitignore": f"build/\n{entry}\n"})
    res = project.run("init")
    assert res.exit_code == 0, res
    assert (project.root / ".gitignore").read_text() == f"build/\n{entry}\n"
    assert ".gitignore" not in res.stdout


def test_init_twice_with_force_keeps_one_gitignore_entry(project: Project) -> None:
    assert project.run("init").exit_code == 0
    assert project.run("init", "--force").exit_code == 0
    assert (project.root / ".gitignore").read_text() == GITIGNORE_BLOCK


def test_init_force_keeps_specs_under_the_state_folder(project: Project) -> None:
    project.write({".ralph/specs/api.spec.md": "# my api spec\n"})
    res = project.run("init", "--force")
    assert res.exit_code == 0, res
    assert (project.root / ".ralph" / "specs" / "api.spec.md").read_text() == "# my api spec\n"


def test_init_project_option_targets_another_folder(project: Project, tmp_path: Path) -> None:
    other = tmp_path / "other"
    other.mkdir()
    res = project.run("init", "--project", str(other))
    assert res.exit_code == 0, res
    assert (other / ".ralph" / "state.json").is_file()
    assert (other / "PROMPT.md").is_file()
    assert not (project.root / ".ralph").exists()


def test_project_option_must_exist(project: Project, tmp_path: Path) -> None:
    res = project.run("status", "-C", str(tmp_path / "missing"))
    assert res.exit_code == 2, res
    assert "Traceback" not in res.stderr


def test_status_without_state_lists_specs_at_zero(project: Project) -> None:
    project.write({"specs/b.spec.md": "b\n", "specs/a.spec.md": "a\n", "PROMPT.md": "p\n"})
    data = status_json(project)
    assert data["iteration"] == 0
    assert data["running"] is False
    assert data["complete"] is False
    assert [s["path"] for s in data["specs"]] == ["PROMPT.md", "specs/a.spec.md", "specs/b.spec.md"]
    assert all(s["done_count"] == 0 and s["last_status"] is None for s in data["specs"])
    assert not (project.root / ".ralph").exists()  # status creates nothing


def test_status_without_specs_or_state_says_where_specs_are_looked_for(
    project: Project,
) -> None:
    res = project.run("status")
    assert_one_error(res, "no specs")
    assert "PROMPT.md" in res.stderr
    assert "specs/" in res.stderr
    res = project.run("status", "--json")
    assert_one_error(res, "no specs")
    assert res.stdout == ""


def test_reset_without_state_has_nothing_to_reset(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("reset", "--all")
    assert res.exit_code == 0, res
    assert "nothing to reset" in res.stdout
    assert res.stderr == ""
    assert not (project.root / ".ralph").exists()


def test_reset_refuses_a_corrupt_state_and_keeps_it(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", ".ralph/state.json": "{not json"})
    res = project.run("reset", "--all")
    assert_one_error(res, "state.json")
    assert (project.root / ".ralph" / "state.json").read_text() == "{not json"


def test_unknown_option_is_a_usage_error(project: Project) -> None:
    res = project.run("status", "--jsno")
    assert res.exit_code == 2, res
    assert "--jsno" in res.stderr
