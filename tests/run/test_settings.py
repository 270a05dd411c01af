"""`ralph run`'s settings as declared (run/settings.py): a new option is one field, seen on the
command line, in `--continue`'s saved run, in ralph.yaml's place in the precedence and by the run
with no other edit; every ralph.yaml key exists and the help says its default as ralph.yaml has
it, every older spelling is named in --help, and the new spellings and an older saved file work
end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ralph.commands.run import run_options
from ralph.commands.runoptions import kept_settings, save_run_options
from ralph.rules.environment.setting import Declared, checked, declared
from ralph.run.settings import RunSettings, resolve
from ralph.store.person.config import AgentConfig, RalphConfig, parse_config
from tests.conftest import Project
from tests.rules.environment.test_setting import given

# --------------------------------------------------------------------------- one field, everywhere


def sample(d: Declared, other: bool = False) -> Any:
    """A value of setting `d` that is not its default (`other`: a second one, not the first)."""
    if d.kind is bool:
        return True
    if d.setting.kinds:
        return f"{d.setting.kinds[-1 if other else 0]}=/tmp/ralph-report"
    if d.choices:  # `other` is not the default; the first one is not `other`
        default = getattr(resolve({}, RalphConfig()), d.name)
        second = next(c for c in reversed(d.choices) if c != default)
        return second if other else next(c for c in d.choices if c != second)
    if d.kind is int:
        return int(d.setting.minimum or 1) + (2 if other else 3)
    if d.kind is float:
        return 1.5 if other else 2.5
    return "other" if other else "given"


def command_line(d: Declared, value: Any) -> list[str]:
    return [d.setting.name] if d.kind is bool else [d.setting.name, str(value)]


def yaml_with(key: str, value: Any) -> RalphConfig:
    """ralph.yaml with `key` (dotted) set to `value`: JSON is YAML."""
    tree: Any = value
    for part in reversed(key.split(".")):
        tree = {part: tree}
    return parse_config(json.dumps(tree))


@pytest.mark.parametrize("d", declared(RunSettings), ids=lambda d: d.name)
def test_a_field_is_a_whole_run_option(d: Declared, tmp_path: Path) -> None:
    """Each field of RunSettings, the next one too: its flag on the generated command line,
    kept by `--continue`, below the command line and the saved run but above the default in
    ralph.yaml (and an agent's own entry), and read by the run as `opts.settings.NAME`."""
    value = checked(d, sample(d))
    wanted = value if not d.many else tuple(value)
    given_now = given(*command_line(d, sample(d)))
    assert given_now == {d.name: wanted}  # the command line
    save_run_options(tmp_path, given_now)
    kept = kept_settings(tmp_path, {}, continue_=True)
    assert kept == ({d.name: wanted} if d.setting.kept else {})  # the saved run
    config = RalphConfig()
    if d.setting.yaml is not None:
        other = checked(d, sample(d, other=True))
        config = yaml_with(d.setting.yaml, other)
        assert other not in (wanted, getattr(resolve({}, RalphConfig()), d.name))
        assert getattr(resolve({}, config), d.name) == other  # ralph.yaml beats the default
        assert getattr(resolve(kept, config), d.name) == wanted  # the saved run beats it
    if d.setting.each_agent is not None:
        entry = AgentConfig(name="one", **{d.setting.each_agent: checked(d, sample(d, True))})
        assert getattr(resolve({}, config, entry), d.name) == checked(d, sample(d, True))
        assert getattr(resolve(given_now, config, entry), d.name) == wanted
    opts = run_options(tmp_path, resolve(given_now, config), config, (), None)
    assert getattr(opts.settings, d.name) == wanted  # what the run reads


def test_a_setting_with_no_value_given_is_neither_given_nor_saved(tmp_path: Path) -> None:
    # the control of the test above: nothing given says nothing, and keeps nothing
    assert given() == {}
    save_run_options(tmp_path, {})
    assert kept_settings(tmp_path, {}, continue_=True) == {}


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
        assert re.search(rf"\(ralph.yaml: [^)]*\b{re.escape(key)}\)", d.setting.described()), d.name
        said = re.search(r"default (\w+)", d.setting.help)
        if said:
            assert said.group(1) == (f"{value:g}" if isinstance(value, float) else str(value)), (
                d.name
            )


def test_run_help_names_every_older_spelling(project: Project) -> None:
    text = " ".join(project.run("run", "--help").stdout.split())
    for d in declared(RunSettings):
        for alias in d.setting.aliases:
            for flag in alias.flags:
                assert flag in text, flag


# --------------------------------------------------------------------------- end to end


@pytest.mark.slow
def test_the_new_spellings_run_end_to_end(project: Project, tmp_path: Path) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    agent = project.fake({"*": [{"signal": "CONTINUE"}]})
    junit, data = tmp_path / "j.xml", tmp_path / "r.json"
    args = ("--output", "json", "--report", f"junit={junit}", "--report", f"json={data}")
    res = project.run("run", *agent, "-n", "1", *args)
    assert res.exit_code == 3, res
    assert junit.exists() and json.loads(data.read_text())
    events = [json.loads(line) for line in res.stdout.splitlines() if line.strip()]
    assert events and events[0]["event"] == "run_started"


@pytest.mark.slow
def test_continue_from_a_file_an_older_ralph_saved(project: Project, tmp_path: Path) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    _, name = project.fake({"*": [{"signal": "CONTINUE"}]})
    junit = tmp_path / "j.xml"
    old = {
        "agent": [name],
        "agent_command": None,
        "max_iterations": 1,
        "plain": True,
        "log_format": "text",
        "junit": str(junit),
        "report_json": None,
    }
    project.store.mkdir(parents=True, exist_ok=True)
    (project.store / "run-options.json").write_text(
        json.dumps({"schema_version": 1, "options": old})
    )
    res = project.run("run", "--continue")
    assert res.exit_code == 3, res  # the saved -n 1
    assert len(project.calls()) == 1  # the saved agent
    assert junit.exists()  # the saved report
    saved = json.loads((project.store / "run-options.json").read_text())
    assert saved["schema_version"] == 2  # saved again, in this ralph's spelling
    assert saved["options"]["report"] == [f"junit={junit}"]
    assert saved["options"]["output"] == "plain"


@pytest.mark.slow
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
