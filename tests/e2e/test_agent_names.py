"""A custom agent goes by the name of its script (or `agent.name`), not by `python3` or `sh`:
in the events, the history, the usage and the state."""

from __future__ import annotations

import json
import sys

from tests.conftest import SCRIPTED_AGENT, Project


def test_the_name_shows_in_events_history_and_usage(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    agent = project.script({"*": [{"signal": "CONTINUE"}]})
    res = project.run("run", "--agent-command", agent, "-n", "1", "--log-format", "json")
    assert res.exit_code == 3, res
    started = json.loads(res.stdout.splitlines()[0])
    name = SCRIPTED_AGENT.stem
    assert started["agent"] == name
    (row,) = json.loads(project.run("history", "--json").stdout)["rotations"]
    assert row["agent"] == name
    assert list(project.state()["agents"]) == [name]
    assert name != "python" and not name.startswith("python")


def test_agent_name_in_ralph_yaml_names_a_custom_command(project: Project) -> None:
    command = json.dumps(f"{sys.executable} {SCRIPTED_AGENT} {project.root.parent / 'x.json'}")
    project.write(
        {
            "PROMPT.md": "# goal\n",
            "ralph.yaml": f"agent:\n  name: reviewer\n  command: {command}\n",
        }
    )
    (project.root.parent / "x.json").write_text(json.dumps({"*": [{"signal": "CONTINUE"}]}))
    res = project.run("run", "-n", "1")
    assert res.exit_code == 3, res
    (row,) = json.loads(project.run("history", "--json").stdout)["rotations"]
    assert row["agent"] == "reviewer"
