"""Fake agent: write its pid to argv[1], print argv[2] if given, then hang without output."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path


def write_pid(path: str, pid: int) -> None:
    # Written then renamed, so a test polling for the file never reads half a pid.
    tmp = Path(f"{path}.tmp")
    tmp.write_text(str(pid))
    tmp.replace(path)


write_pid(sys.argv[1], os.getpid())
if len(sys.argv) > 2:
    print(sys.argv[2], flush=True)
# Bounded, so a broken test does not leave it behind for long.
time.sleep(30)
