"""An agent that cannot start: process/ reports the program and the OS's reason, and the agent
layer words it as the agent's ("cannot start agent: ...") with a hint of what to do."""

from __future__ import annotations

import sys
from dataclasses import replace
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


posix_only = pytest.mark.skipif(sys.platform == "win32", reason="needs chmod")


@pytest.mark.slow  # real processes
def test_missing_program_is_the_agents_failure(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-agent")
    error = start(Unresolved("x", [missing]), request(tmp_path))

    assert error.message.startswith(f"cannot start agent: {missing}: ")
    assert error.hint == "install the agent CLI or fix the agent command in ralph.yaml"


@pytest.mark.slow  # real processes
@posix_only
def test_non_executable_program_says_chmod(tmp_path: Path) -> None:
    script = tmp_path / "agent"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    error = start(Unresolved("x", [str(script)]), request(tmp_path))

    assert error.message.startswith(f"cannot start agent: {script}: ")
    assert error.hint == (
        "make the agent executable (chmod +x) or fix the agent command in ralph.yaml"
    )


@pytest.mark.slow  # real processes
def test_missing_working_directory_is_named(tmp_path: Path) -> None:
    gone = tmp_path / "gone"
    req = replace(request(tmp_path), root=gone)
    error = start(Unresolved("x", [sys.executable, "-c", "pass"]), req)

    assert error.message.startswith(f"cannot start agent: {sys.executable}: ")
    assert error.hint == f"the working directory {gone} does not exist"
