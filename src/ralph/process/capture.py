"""Short commands ralph runs for itself (git): output captured, stdin closed, no time limit."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path


def run_captured(argv: Sequence[str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """The finished command; OSError when it cannot start (e.g. not installed)."""
    return subprocess.run(argv, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, check=False)
