"""Fake agent: fork a daemon grandchild (setsid, pid to argv[1]), live argv[2] s, exit 0."""

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


pid_path, parent_seconds = sys.argv[1], float(sys.argv[2])
if os.fork() == 0:
    # Leave the agent's session and process group, like a real daemon, and let go of
    # the pipes so only the pid tracking (not EOF) can find it.
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    write_pid(pid_path, os.getpid())
    time.sleep(30)
    os._exit(0)
# Wait until the grandchild exists before the countdown, so ralph has time to see it.
while not Path(pid_path).exists():
    time.sleep(0.01)
print("forked", flush=True)
time.sleep(parent_seconds)
