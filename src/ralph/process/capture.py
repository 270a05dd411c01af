"""Short commands ralph runs for itself (git): output captured, stdin closed, no time limit."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Mapping, Sequence
from pathlib import Path

# Every process ralph starts for itself (git, a sandbox's test run) carries this variable: a
# child of ralph with neither it nor an agent's mark is an orphan that cleared its environment
# to hide (process/orphans.py).
HELPER = "RALPH_HELPER"


def run_captured(
    argv: Sequence[str], cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[bytes]:
    """The finished command; OSError when it cannot start (e.g. not installed). `env`: the
    complete environment (None: ralph's own). In a session of its own: a Ctrl-C meant for
    ralph does not cut ralph's own short command (git) off half way, where its answer would be
    taken for a wrong one; ralph stops itself once the command returns."""
    return subprocess.run(
        argv,
        cwd=cwd,
        env={**(os.environ if env is None else env), HELPER: "1"},
        stdin=subprocess.DEVNULL,
        capture_output=True,
        check=False,
        start_new_session=True,
    )
