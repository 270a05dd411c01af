"""Short commands ralph runs for itself (git): output captured, stdin closed, no time limit."""

from __future__ import annotations

import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path


def run_captured(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The finished command; OSError when it cannot start (e.g. not installed). `env`: the
    complete environment (None: ralph's own)."""
    return subprocess.run(
        argv,
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
    )
