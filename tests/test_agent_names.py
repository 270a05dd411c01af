"""A custom agent goes by the name of its script (or `agent.name`), not by `python3` or `sh`:
in the events, the history, the usage and the state."""

from __future__ import annotations

import json
import shlex
import sys

import pytest

from ralph.rules.names import command_label
from tests.conftest import SCRIPTED_AGENT, Project


@pytest.mark.parametrize(
    ("command", "label"),
    [
        ("python3 agents/review.py --fast", "review"),
        ("/usr/bin/python3.11 -u /x/scripted_agent.py s.json", "scripted_agent"),
        ("python -m mypkg.agent", "agent"),
        ("sh -c 'my-agent --fast'", "my-agent"),
        ("""sh -c 'cat > /dev/null; echo "<ralph>DONE</ralph>"'""", "sh"),
        ("bash -c 'cd agent && MODE=x ./run-agent.sh --fast | tee log'", "run-agent"),
        ("sh -c 'read -r _; python3 tools/coder.py'", "coder"),
        ("bash run-agent.sh", "run-agent"),
        ("env A=1 B=2 ./bin/agent", "agent"),
        ("uv run coder.py", "coder"),
        ("timeout 60 claude -p", "claude"),
        ("node dist/cli.js", "cli"),
        ("my-agent --x", "my-agent"),
        ("python3", "python3"),  # nothing else to go by
    ],
)
def test_a_custom_agent_is_named_after_its_script(command: str, label: str) -> None:
    assert command_label(shlex.split(command)) == label


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
