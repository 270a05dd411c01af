"""Fake agent: starts a daemon that hides from ralph's cleanup, says CONTINUE, and exits (with
`--stay`: goes on running, so that ralph can be killed meanwhile).

Usage: vanisher.py TAG [--stay] [--forge]. The daemon double-forks, calls setsid(), closes its
output, then re-executes itself with an empty environment (no RALPH_RUN_ID, no mark of any kind;
with `--forge`, a RALPH_AGENT_RUN mark of its own making) and sleeps with TAG on its command
line, so a test can look for it.
"""

from __future__ import annotations

import os
import sys
import time
import uuid


def daemon(tag: str, env: dict[str, str]) -> None:
    if os.fork():
        os._exit(0)  # the middle child: the daemon is orphaned at once
    os.setsid()
    null = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(null, fd)
    os.chdir("/")
    code = "import time\nwhile True: time.sleep(1)"
    os.execve(sys.executable, [sys.executable, "-c", code, tag], env)


def main() -> int:
    tag = sys.argv[1]
    pid = os.fork()
    if pid == 0:
        forged = {"RALPH_AGENT_RUN": uuid.uuid4().hex} if "--forge" in sys.argv[2:] else {}
        daemon(tag, forged)
    os.waitpid(pid, 0)
    print("daemon started; <ralph>CONTINUE</ralph>", flush=True)
    if "--stay" in sys.argv[2:]:
        time.sleep(300)
    return 0


if __name__ == "__main__":
    sys.exit(main())
