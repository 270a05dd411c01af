"""The one precedence rule of the run's settings (rules/environment/setting.py: the command line,
then the
saved run, then ralph.yaml, then the default), the older spellings said in a setting's own, and
the checks a value passes wherever it comes from; the model is `ralph run`'s own
(run/settings.py).

The command line is parsed by the real generated command (Click's own parser, nothing run), and
the rule is the real function: each level is checked against the one below it, with a control
where the level above is absent."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Literal

import pytest
import typer

from ralph.cli import app
from ralph.commands.runoptions import given_settings
from ralph.errors import ExitCode, UsageError
from ralph.rules.environment.setting import (
    Alias,
    checked,
    declared,
    layered,
    setting,
    spoken,
    yaml_level,
)
from ralph.run.settings import RunSettings, resolve
from ralph.store.person.config import RalphConfig, parse_config


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


# ---------------------------------------------------------------- a new option is one field


@dataclass(frozen=True, kw_only=True)
class Toy:
    colour: Literal["red", "blue"] = setting(
        "--colour", help="A colour.", yaml="look.colour", aliases=(Alias("red", ("--red",), "red"),)
    )
    size: int = setting("--size", "-s", help="A size.", default=1, minimum=1)


def test_one_field_is_a_whole_setting() -> None:
    colour, size = declared(Toy)
    assert (colour.kind, colour.choices, colour.many) == (str, ("red", "blue"), False)
    assert (size.kind, size.setting.name) == (int, "--size")
    assert Toy(colour="red") == Toy(colour="red", size=1)  # its default
    assert spoken(Toy, {"red": True}) == {"colour": "red"}  # its older spelling
    assert spoken(Toy, {"red": False}) == {}  # the control: a flag not given says nothing
    yaml = yaml_level(Toy, SimpleNamespace(look=SimpleNamespace(colour="blue")))
    assert layered(Toy, ({"size": 3}, {}, yaml)) == {"size": 3, "colour": "blue"}
    assert layered(Toy, ({"colour": "red"}, {}, yaml)) == {"colour": "red"}
    assert colour.setting.described() == "A colour (ralph.yaml: look.colour). Also --red (red)."
    with pytest.raises(ValueError, match="must be at least 1, got 0"):
        checked(size, 0)
    with pytest.raises(ValueError, match="'green' is not one of 'red', 'blue'"):
        checked(colour, "green")
    assert checked(colour, "BLUE") == "blue"
