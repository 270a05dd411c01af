"""Fake agent whose children escape its process group: a daemon (fork, setsid, fork) and a
child in a process group of its own; their pids go to files in argv[1], then it sleeps.

With argv[2] == "kill-ralph" it first SIGKILLs its parent (ralph), before ralph can do
anything after starting it (such as noting its PID in run.json).
"""

from __future__ import annotations

import os
import signal
import sys
import time
from pathlib import Path

out = Path(sys.argv[1])
if sys.argv[2:] == ["kill-ralph"]:
    os.kill(os.getppid(), signal.SIGKILL)


def write_pid(name: str) -> None:
    tmp = out / f"{name}.tmp"  # written then renamed: a test never reads half a pid
    tmp.write_text(str(os.getpid()))
    tmp.replace(out / name)


def detach() -> None:
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)


if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:  # the daemon proper: no session leader, parent gone
        detach()
        write_pid("daemon.pid")
        time.sleep(120)
    os._exit(0)
if os.fork() == 0:
    os.setpgid(0, 0)
    detach()
    write_pid("group.pid")
    time.sleep(120)
    os._exit(0)
time.sleep(120)
