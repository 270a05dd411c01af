"""Starting an agent process in its own session: the only Popen in ralph, and the words for a
start that fails."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from ralph.errors import AgentError
from ralph.process.request import ProcessRequest


def spawn(request: ProcessRequest) -> subprocess.Popen[bytes]:
    """The started process, its stdout and stderr piped; AgentError when it cannot start."""
    program = request.argv[0]
    stdin: IO[bytes] | int = subprocess.DEVNULL
    if request.stdin_path is not None:
        try:
            stdin = request.stdin_path.open("rb")
        except OSError as exc:
            raise AgentError(
                f"cannot start agent: {program}: cannot read prompt file "
                f"{request.stdin_path}: {exc.strerror or exc}",
                "check that the prompt file exists and is readable",
            ) from exc
    # Own session and process group (on Windows: process group): Ctrl-C at the terminal does
    # not reach the agent (ralph decides how it stops) and killpg() reaches all it starts.
    isolation: dict[str, Any] = {"start_new_session": True}
    if sys.platform == "win32":
        isolation = {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    try:
        return subprocess.Popen(
            request.argv,
            cwd=request.cwd,
            env=dict(request.env),
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **isolation,
        )
    except OSError as exc:
        raise AgentError(
            f"cannot start agent: {program}: {_reason(exc, program)}",
            _hint(exc, request.cwd),
        ) from exc
    finally:
        # The child has its own copy of the descriptor.
        if not isinstance(stdin, int):
            stdin.close()


def _reason(exc: OSError, program: str) -> str:
    reason = exc.strerror or str(exc)
    # Popen names the working directory in the error when chdir() is what failed.
    if exc.filename is not None and str(exc.filename) != program:
        return f"{exc.filename}: {reason}"
    return reason


def _hint(exc: OSError, cwd: Path) -> str:
    if isinstance(exc, PermissionError):
        return "make the agent executable (chmod +x) or fix the agent command in ralph.yaml"
    if isinstance(exc, FileNotFoundError) and not cwd.is_dir():
        return f"the working directory {cwd} does not exist"
    if isinstance(exc, FileNotFoundError):
        return "install the agent CLI or fix the agent command in ralph.yaml"
    return "check the agent command in ralph.yaml"
