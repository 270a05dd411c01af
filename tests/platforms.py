"""What a test needs of the platform it runs on, said once: skips with their reason, and the
executable wrapper a fake CLI is put on PATH with (a shell script, or a .cmd file on Windows)."""

from __future__ import annotations

import stat
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path

import pytest

WINDOWS = sys.platform == "win32"

posix_signals = pytest.mark.skipif(
    WINDOWS, reason="sends SIGINT, SIGHUP or SIGKILL to a process: Windows has no such signals"
)
posix_groups = pytest.mark.skipif(
    WINDOWS, reason="needs POSIX process groups and sessions (killpg, setsid)"
)
posix_shell = pytest.mark.skipif(WINDOWS, reason="runs a /bin/sh script")
posix_modes = pytest.mark.skipif(WINDOWS, reason="needs POSIX file modes (chmod -x)")


def wrapper(
    bin_dir: Path, name: str, argv: Sequence[str], env: Mapping[str, str] | None = None
) -> Path:
    """An executable `name` on any platform that runs `argv` with its own arguments appended,
    `env` added to its environment: `name` as a shell script, `name.cmd` on Windows (found on
    PATH through PATHEXT, as npm's own wrappers are)."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    env = env or {}
    if WINDOWS:
        lines = ["@echo off", *(f'set "{k}={v}"' for k, v in env.items())]
        lines.append(" ".join(f'"{a}"' for a in argv) + " %*")
        path = bin_dir / f"{name}.cmd"
        path.write_text("\r\n".join(lines) + "\r\n")
        return path
    import shlex

    exports = "".join(f"export {k}={shlex.quote(v)}\n" for k, v in env.items())
    command = " ".join(shlex.quote(a) for a in argv)
    path = bin_dir / name
    path.write_text(f'#!/bin/sh\n{exports}exec {command} "$@"\n')
    path.chmod(path.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return path
