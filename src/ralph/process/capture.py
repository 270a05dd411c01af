"""Short commands ralph runs for itself (git, npm's settings): output captured, stdin closed, a
time limit when one is given (subprocess.TimeoutExpired past it, the command killed)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

from ralph.process import started


def run_captured(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str] | None = None,
    timeout: float | None = None,
) -> subprocess.CompletedProcess[bytes]:
    """The finished command; OSError when it cannot start (e.g. not installed). `env`: the
    complete environment (None: ralph's own). In a session of its own: a Ctrl-C meant for
    ralph does not cut ralph's own short command (git) off half way, where its answer would be
    taken for a wrong one; ralph stops itself once the command returns."""
    return started.run(
        argv,
        cwd=cwd,
        env=dict(os.environ if env is None else env),
        stdin=subprocess.DEVNULL,
        start_new_session=True,
        timeout=timeout,
    )
