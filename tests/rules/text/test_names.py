"""rules/text/names.py: finding what the user meant among known names."""

from __future__ import annotations

import shlex

import pytest

from ralph.rules.text.names import command_label


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
