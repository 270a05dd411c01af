"""`ralph run`'s settings, declared once (commands/runsettings.py): the one precedence rule (the
command line, then the saved run, then ralph.yaml, then the default), the older spellings, the
`--report KIND=PATH` errors, and `--continue` over files saved by this ralph and an older one.

The command line is parsed by the real generated command (Click's own parser, nothing run), and
the rule is the real function: each level is checked against the one below it, with a control
where the level above is absent."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import typer

from ralph.cli import app
from ralph.commands.runoptions import (
    given_settings,
    kept_settings,
    save_run_options,
    saved_settings,
)
from ralph.commands.runsettings import RunSettings, resolve
from ralph.commands.setting import declared, layered
from ralph.errors import ExitCode, StateError, UsageError
from ralph.store.config import RalphConfig, parse_config
from tests.conftest import Project


def given(*args: str) -> dict[str, Any]:
    """The settings a `ralph run ARGS` command line gives, parsed by the generated command."""
    command: Any = typer.main.get_command(app)
    ctx = command.commands["run"].make_context("run", list(args))
    options = {k: v for k, v in ctx.params.items() if k not in ("continue_", "root")}
    return given_settings(options)


def settings(*args: str, saved: dict[str, Any] | None = None, yaml: str = "") -> RunSettings:
    levels = layered(RunSettings, (given(*args), saved or {}))
    return resolve(levels, parse_config(yaml) if yaml else RalphConfig())


# --------------------------------------------------------------------------- the precedence rule


def test_the_command_line_beats_the_saved_run() -> None:
    assert settings("-n", "5", saved={"max_iterations": 9}).max_iterations == 5
    assert settings(saved={"max_iterations": 9}).max_iterations == 9  # the control


def test_the_saved_run_beats_ralph_yaml() -> None:
    yaml = "max_iterations: 7\nparallel: 2\n"
    assert settings(saved={"max_iterations": 9}, yaml=yaml).max_iterations == 9
    assert settings(yaml=yaml).max_iterations == 7  # the control


def test_ralph_yaml_beats_the_default() -> None:
    assert settings(yaml="pool: {rotation: fallback}\n").rotation == "fallback"
    assert settings().rotation == "round-robin"  # the control: ralph.yaml's own default
    assert settings(yaml="sandbox: bwrap\n").sandbox == "bwrap"
    assert settings("--sandbox", "off", yaml="sandbox: bwrap\n").sandbox == "off"


def test_a_setting_without_a_yaml_key_takes_its_default() -> None:
    s = settings()
    assert (s.output, s.report, s.agent, s.notify, s.model) == ("live", (), (), False, None)


def test_one_of_a_group_given_replaces_the_saved_other() -> None:
    assert not settings("-q", saved={"verbose": True}).verbose
    assert settings(saved={"verbose": True}).verbose  # the control: nothing of the group given
    assert settings("--notify", saved={"verbose": True}).verbose  # another setting: no effect


def test_a_report_given_replaces_the_saved_one_of_its_kind_only() -> None:
    saved = {"report": ("junit=/saved/j.xml", "json=/saved/r.json")}
    reports = settings("--report", "json=/new/r.json", saved=saved).reports
    assert reports == {"json": Path("/new/r.json"), "junit": Path("/saved/j.xml")}
    assert settings(saved=saved).reports["json"] == Path("/saved/r.json")  # the control


def test_the_last_report_of_a_kind_wins() -> None:
    s = settings("--report", "junit=/a.xml", "--report", "junit=/b.xml")
    assert s.reports == {"junit": Path("/b.xml")}


def test_agents_given_replace_the_saved_pool_whatever_the_spelling() -> None:
    saved = {"agent": ("cmd:python agent.py",)}
    assert settings("--agent", "demo", saved=saved).agent == ("demo",)
    assert settings("--agent-command", "sh x", saved={"agent": ("demo",)}).agent == ("cmd:sh x",)
    assert settings(saved=saved).agent == ("cmd:python agent.py",)  # the control


# --------------------------------------------------------------------------- older spellings


@pytest.mark.parametrize(
    ("args", "output"),
    [
        (("--headless",), "plain"),
        (("--plain",), "plain"),
        (("--log-format", "json"), "json"),
        (("--log-format", "text"), "live"),
        (("--no-color",), "no-color"),
        (("--headless", "--log-format", "json"), "json"),  # the most headless of them
        (("--output", "live", "--headless"), "plain"),
        (("--no-color", "--log-format", "text"), "no-color"),
        (("--output", "json"), "json"),
        ((), "live"),
    ],
)
def test_the_older_output_flags_are_spellings_of_output(args: tuple[str, ...], output: str) -> None:
    assert settings(*args).output == output


def test_the_older_report_flags_are_spellings_of_report(tmp_path: Path) -> None:
    s = settings(
        "--junit",
        str(tmp_path / "j.xml"),
        "--report-json",
        str(tmp_path / "r.json"),
        "--report-html",
        str(tmp_path / "r.html"),
    )
    assert s.reports == {
        "junit": tmp_path / "j.xml",
        "json": tmp_path / "r.json",
        "html": tmp_path / "r.html",
    }
    assert settings("--report-junit", str(tmp_path / "j.xml")).reports == {
        "junit": tmp_path / "j.xml"
    }


def test_a_relative_report_path_is_made_absolute(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    assert settings("--report", "junit=out/j.xml").reports == {"junit": tmp_path / "out/j.xml"}


def test_agent_command_is_agent_with_cmd() -> None:
    assert settings("--agent", "demo", "--agent-command", "python a.py").agent == (
        "demo",
        "cmd:python a.py",
    )
    assert settings("--agent", "cmd:python a.py").agent == ("cmd:python a.py",)


# --------------------------------------------------------------------------- bad values


@pytest.mark.parametrize(
    ("args", "said"),
    [
        (
            ("--report", "xml=out.xml"),
            "--report: 'xml=out.xml': the kind is one of junit, json, html",
        ),
        (("--report", "junit"), "--report: 'junit': no path after junit="),
        (("--report", "junit="), "--report: 'junit=': no path after junit="),
        (("-n", "0"), "--max-iterations: must be at least 1, got 0"),
        (("--max-cost", "0"), "--max-cost: must be more than 0, got 0.0"),
        (("-q", "-v"), "--quiet and --verbose contradict each other"),
    ],
)
def test_a_bad_value_is_a_usage_error(args: tuple[str, ...], said: str) -> None:
    with pytest.raises(UsageError) as caught:
        given(*args)
    assert caught.value.message.startswith(said), caught.value.message
    assert caught.value.exit_code == ExitCode.USAGE


def test_a_report_into_a_folder_is_a_usage_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="is a folder, not a file"):
        given("--report", f"html={tmp_path}")
    assert given("--report", f"html={tmp_path / 'r.html'}")  # the control


def test_a_bad_report_on_the_command_line_is_one_line_and_exit_2(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", "--agent", "demo", "--report", "xml=out.xml")
    assert res.exit_code == 2, res
    lines = res.stderr.splitlines()
    assert lines[0] == (
        "error: --report: 'xml=out.xml': the kind is one of junit, json, html (KIND=PATH)"
    )
    assert len(lines) == 2 and lines[1].startswith("hint: ")
    assert not (project.root / "out.xml").exists()
    assert project.calls() == []


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


# --------------------------------------------------------------------------- the declaration


def test_each_yaml_key_exists_and_the_help_says_its_default() -> None:
    config = RalphConfig()
    for d in declared(RunSettings):
        key = d.setting.yaml
        if key is None:
            continue
        value: Any = config
        for part in key.split("."):
            value = getattr(value, part)  # the key is one ralph.yaml has
        said = re.search(r"\(default (\S+?)[,)]", d.setting.help)
        if said:
            assert said.group(1) == str(value), d.name


def test_run_help_names_every_older_spelling(project: Project) -> None:
    text = " ".join(project.run("run", "--help").stdout.split())
    for d in declared(RunSettings):
        for alias in d.setting.aliases:
            for flag in alias.flags:
                assert flag in text, flag
