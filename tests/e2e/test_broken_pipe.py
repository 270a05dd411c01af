"""`ralph status --json | head`: the reader went away; ralph stops quietly (no `error: Broken
pipe`, no traceback) with exit code 141, as a Unix tool stopped by a closed pipe does."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from tests.conftest import Project

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX pipes")


def closed_reader(project: Project, *args: str) -> subprocess.CompletedProcess[bytes]:
    """`ralph ARGS` writing into a pipe whose reading end is already closed."""
    read, write = os.pipe()
    os.close(read)
    try:
        return subprocess.run(
            [sys.executable, "-m", "ralph", *args],
            cwd=project.root,
            stdout=write,
            stderr=subprocess.PIPE,
            timeout=60,
            check=False,
        )
    finally:
        os.close(write)


@pytest.mark.parametrize("args", [("status", "--json"), ("status",), ("agents",), ("--help",)])
def test_a_closed_pipe_ends_the_command_quietly(project: Project, args: tuple[str, ...]) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    assert project.run("init").exit_code == 0
    res = closed_reader(project, *args)
    assert res.stderr == b""
    assert res.returncode == 141
