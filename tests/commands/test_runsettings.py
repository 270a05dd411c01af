"""`ralph run`'s settings as declared (commands/runsettings.py): every ralph.yaml key exists and
the help says its default as ralph.yaml has it, every older spelling is named in --help, and the
new spellings and an older saved file work end to end."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ralph.commands.runsettings import RunSettings
from ralph.commands.setting import declared
from ralph.store.config import RalphConfig
from tests.conftest import Project

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
        assert f"(ralph.yaml: {key})" in d.setting.described(), d.name
        said = re.search(r"default (\w+)", d.setting.help)
        if said:
            assert said.group(1) == str(value), d.name


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
