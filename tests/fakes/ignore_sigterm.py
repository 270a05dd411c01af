"""Fake agent: ignore SIGTERM, write its pid to argv[1], say ready, then hang."""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path


def write_pid(path: str, pid: int) -> None:
    # Written then renamed, so a test polling for the file never reads half a pid.
    tmp = Path(f"{path}.tmp")
    tmp.write_text(str(pid))
    tmp.replace(path)


signal.signal(signal.SIGTERM, signal.SIG_IGN)
write_pid(sys.argv[1], os.getpid())
# Printed only after the handler is in place: proves SIGTERM was really ignored.
print("ready", flush=True)
time.sleep(30)
