"""An agent that cannot start: process/ reports the program and the OS's reason, and the agent
layer words it as the agent's ("cannot start agent: ...") with a hint of what to do."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ralph.agents.command import CommandAgent
from ralph.agents.request import AgentRequest
from ralph.errors import AgentError
from tests.agent_helpers import request


class Unresolved(CommandAgent):
    """Runs its argv as given: the start itself fails, not the PATH lookup before it."""

    def command(self, request: AgentRequest) -> tuple[tuple[str, ...], Path | None]:
        return self.argv, request.prompt_file


def start(agent: CommandAgent, req: AgentRequest) -> AgentError:
    with pytest.raises(AgentError) as caught:
        agent.run(req, lambda stream, lines: None)
    return caught.value


def test_unreadable_prompt_file_is_named(tmp_path: Path) -> None:
    req = request(tmp_path)
    req.prompt_file.unlink()
    error = start(Unresolved("x", [sys.executable, "-c", "pass"]), req)

    assert error.message.startswith(
        f"cannot start agent: {sys.executable}: cannot read prompt file {req.prompt_file}: "
    )
    assert error.hint == "check that the prompt file exists and is readable"
