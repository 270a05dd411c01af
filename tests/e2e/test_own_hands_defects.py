"""What ralph says when its own folder is damaged under it, and the temporary files a killed
save leaves: one line naming what is actually wrong, exit 1; leftovers swept at the next run."""

from __future__ import annotations

import json
import os
import sys

import pytest

from tests.conftest import Project

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX shell agents")


def shell_agent(project: Project, body: str) -> str:
    agent = project.root.parent / "agent.sh"
    agent.write_text(f"#!/bin/sh\n{body}\necho '<ralph>CONTINUE</ralph>'\n")
    agent.chmod(0o755)
    return str(agent)


def one_error(stderr: str) -> str:
    errors = [line for line in stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, stderr
    assert "Traceback" not in stderr and ".tmp" not in errors[0], stderr
    return errors[0]


def test_a_damaged_ralph_folder_mid_run_is_named_for_what_it_is(git_project: Project) -> None:
    git_project.write({"specs/a.spec.md": "# A\n"})
    agent = shell_agent(git_project, "rm .ralph/state.json; mkdir .ralph/state.json")
    result = git_project.run("run", "--agent-command", agent, "-n", "2", "--headless")
    assert result.exit_code == 1, result
    error = one_error(result.stderr)
    assert "state.json: it is a folder, not a file" in error
    assert "disk space" not in result.stderr


def test_a_deleted_ralph_folder_mid_run_loses_nothing(git_project: Project) -> None:
    """ralph's records live in its store: `.ralph/` deleted by the agent costs the agent its
    own notes and the copies for people, which ralph writes again; the run goes on to its
    budget (exit 3) with every rotation counted."""
    git_project.write({"specs/a.spec.md": "# A\n"})
    agent = shell_agent(git_project, "rm -rf .ralph")
    result = git_project.run("run", "--agent-command", agent, "-n", "2", "--headless")
    assert result.exit_code == 3, result
    assert "Traceback" not in result.stderr and "error:" not in result.stderr, result
    assert git_project.state()["iteration"] == 2  # the copy for people, written again
    status = json.loads(git_project.run("status", "--json").stdout)
    assert status["iteration"] == 2 and status["specs"][0]["last_status"] == "CONTINUE"


def test_temporary_files_of_a_killed_save_are_swept_at_the_next_run(git_project: Project) -> None:
    git_project.write({"specs/a.spec.md": "# A\n"})
    assert git_project.run("init").exit_code == 0
    state = git_project.root / ".ralph"
    left = [
        state / ".state.json.0123456789ab.tmp",
        state / "handoffs" / ".a-123456.md.a1b2c3d4e5f6.tmp",
        state / "tests" / ".seen.json.00ff00ff00ff.tmp",
        state / "tests" / "blobs" / ".abc.aaaaaaaaaaaa.tmp",
        state / "lanes" / "lane-1" / ".snapshot.json.bbbbbbbbbbbb.tmp",
    ]
    kept = [state / "handoffs" / "notes.tmp", state / "handoffs" / ".plan.md.tmp"]
    for path in left + kept:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("half a file")
    agent = shell_agent(git_project, "")
    assert git_project.run("run", "--agent-command", agent, "-n", "1", "--headless").exit_code == 3
    assert [p for p in left if p.exists()] == []
    assert all(p.read_text() == "half a file" for p in kept)  # not ralph's: left alone


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root writes anyway")
def test_a_read_only_ralph_folder_mid_run_says_so(git_project: Project) -> None:
    git_project.write({"specs/a.spec.md": "# A\n"})
    agent = shell_agent(git_project, "chmod a-w .ralph")
    try:
        result = git_project.run("run", "--agent-command", agent, "-n", "2", "--headless")
    finally:
        (git_project.root / ".ralph").chmod(0o755)
    assert result.exit_code == 1, result
    assert "read-only" in one_error(result.stderr)
