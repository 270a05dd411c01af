"""Starting an agent or a check in its own session (recorded as ralph's child: process/started.py).
A start that fails is a `StartError` naming the program and the operating system's reason; the
caller (an agent, a check) words it as its own."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import IO, Any

from ralph.process import started
from ralph.process.allowlist import AllowList
from ralph.process.box import Sandbox
from ralph.process.request import ProcessRequest
from ralph.process.sandbox import wrap


class StartError(Exception):
    """A process that could not start: `program`, `reason` (the OS's words) and the error."""

    def __init__(
        self, program: str, reason: str, error: OSError, cwd: Path, stdin: Path | None = None
    ) -> None:
        super().__init__(f"{program}: {reason}")
        self.program = program
        self.reason = reason
        self.error = error
        self.cwd = cwd
        self.stdin = stdin  # set: reading this stdin file failed, the program never ran


def spawn(
    request: ProcessRequest,
    box: Sandbox | None = None,
    token: str = "",
    allow: AllowList | None = None,
) -> subprocess.Popen[bytes]:
    """The started process, its stdout and stderr piped; StartError when it cannot start.
    With `box`, the request's command runs inside that sandbox (`token` names it); with
    `allow`, it gets what the run's rules hand it of its environment (None: all of it)."""
    program = request.argv[0]
    argv, env = request.argv, dict(request.env)
    if box is not None:
        where = (request.cwd, env, token, request.passes, request.room, request.sealed)
        argv, env = wrap(box, argv, *where, allow or AllowList(), writes=request.writes)
    elif allow is not None:
        env = allow.open(env, request.passes)
    stdin: IO[bytes] | int = subprocess.DEVNULL
    if request.stdin_path is not None:
        try:
            stdin = request.stdin_path.open("rb")
        except OSError as exc:
            reason = f"cannot read {request.stdin_path}: {exc.strerror or exc}"
            raise StartError(program, reason, exc, request.cwd, request.stdin_path) from exc
    # Own session and process group (on Windows: process group): Ctrl-C at the terminal does
    # not reach the agent (ralph decides how it stops) and killpg() reaches all it starts.
    isolation: dict[str, Any] = {"start_new_session": True}
    if sys.platform == "win32":
        isolation = {"creationflags": subprocess.CREATE_NEW_PROCESS_GROUP}
    try:
        return started.popen(
            argv,
            cwd=request.cwd,
            env=env,
            stdin=stdin,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            **isolation,
        )
    except OSError as exc:
        raise StartError(program, _reason(exc, program), exc, request.cwd) from exc
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
