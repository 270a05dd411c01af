"""The settings as the command line gives them and as `--continue` reads them back
(commands/runoptions.py): report paths made absolute and never a folder, files saved by this
ralph and by an older one (`junit`, `plain`, `agent_command`, ...), a hand-edited bad value one
clear error, and the option given again never reading it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ralph.commands.runoptions import kept_settings, save_run_options, saved_settings
from ralph.errors import ExitCode, StateError, UsageError
from ralph.rules.environment.setting import declared
from ralph.run.settings import RunSettings, resolve
from ralph.store.person.config import RalphConfig
from tests.conftest import Project
from tests.rules.environment.test_setting import given, settings


def test_a_report_into_a_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is a folder, not a file"):
        given("--report", f"html={tmp_path}")
    assert given("--report", f"html={tmp_path / 'r.html'}")  # the control


def test_a_report_path_with_a_tilde_is_in_the_home(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path))
    assert settings("--report", "json=~/r.json").reports == {"json": tmp_path / "r.json"}


def test_a_relative_report_path_is_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert settings("--report", "junit=out/j.xml").reports == {"junit": tmp_path / "out/j.xml"}


# --------------------------------------------------------------------------- --continue


def test_the_saved_settings_come_back_as_they_were_given(project: Project) -> None:
    root = project.root
    first = given("-n", "3", "--agent", "cmd:sh a", "--output", "json", "--report", "junit=/j.xml")
    save_run_options(root, first)
    data = json.loads((project.store / "run-options.json").read_text())
    assert data["schema_version"] == 2
    assert saved_settings(root, {}) == first
    assert kept_settings(root, given("-n", "5"), True)["max_iterations"] == 5
    assert kept_settings(root, given(), True)["max_iterations"] == 3  # the control


def test_a_file_saved_by_an_older_ralph_still_loads(project: Project) -> None:
    old = {  # as the ralph before the settings model saved them: every option, by parameter
        "agent": None,
        "agent_command": ["python agent.py"],
        "max_iterations": 1,
        "plain": True,
        "log_format": "text",
        "no_color": False,
        "verbose": False,
        "quiet": False,
        "junit": "/tmp/j.xml",
        "report_json": None,
        "report_html": "/tmp/r.html",
        "on_escalation": "accept",
        "sandbox": None,
        "spec": None,
        "parallel": None,
    }
    project.store.mkdir(parents=True, exist_ok=True)
    (project.store / "run-options.json").write_text(
        json.dumps({"schema_version": 1, "options": old})
    )
    s = resolve(saved_settings(project.root, {}), RalphConfig())
    assert s.agent == ("cmd:python agent.py",)
    assert s.output == "plain"
    assert s.reports == {"junit": Path("/tmp/j.xml"), "html": Path("/tmp/r.html")}
    assert (s.max_iterations, s.on_escalation, s.quiet) == (1, "accept", False)


def test_an_older_saved_agent_name_as_a_string_loads(project: Project) -> None:
    project.store.mkdir(parents=True, exist_ok=True)
    (project.store / "run-options.json").write_text(json.dumps({"options": {"agent": "demo"}}))
    assert saved_settings(project.root, {}) == {"agent": ("demo",)}


@pytest.mark.parametrize(
    ("key", "value"),
    [("max_iterations", "many"), ("output", "fancy"), ("report", ["pdf=/x"]), ("notify", "yes")],
)
def test_a_hand_edited_bad_value_is_one_clear_error(project: Project, key: str, value: Any) -> None:
    project.store.mkdir(parents=True, exist_ok=True)
    (project.store / "run-options.json").write_text(json.dumps({"options": {key: value}}))
    with pytest.raises(StateError) as caught:
        saved_settings(project.root, {})
    assert re.search(rf"option {key}: .* is not valid \(", caught.value.message)
    assert caught.value.exit_code == ExitCode.ERROR
    # the option given again replaces it: the bad value is not read
    name = next(d for d in declared(RunSettings) if d.name == key).name
    assert saved_settings(project.root, {name: object()}) == {}


def test_options_in_dot_ralph_are_never_read(project: Project) -> None:
    """`.ralph/` is the agent's: a run-options.json there (where an earlier ralph kept it, or an
    agent wrote it) is not what `--continue` runs, even when the store has none (a project moved
    to another folder starts with an empty store)."""
    project.write({"PROMPT.md": "# goal\n"})
    forged = {"schema_version": 1, "options": {"agent_command": ["sh -c 'touch pwned'"]}}
    (project.root / ".ralph").mkdir(exist_ok=True)
    (project.root / ".ralph" / "run-options.json").write_text(json.dumps(forged))
    with pytest.raises(UsageError, match="nothing to continue"):
        saved_settings(project.root, {})
    save_run_options(project.root, given("--agent", "demo"))  # the control: the store's is read
    assert saved_settings(project.root, {}) == {"agent": ("demo",)}
