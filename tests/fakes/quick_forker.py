"""Fake agent: fork a grandchild that leaves the session, note its pid (argv[1]), exit at once.

The agent is gone before ralph's first look at its tree, so only re-parenting can find it.
"""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

pid = os.fork()
if pid == 0:
    os.setsid()
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    time.sleep(30)
    os._exit(0)
tmp = Path(sys.argv[1] + ".tmp")
tmp.write_text(str(pid))
tmp.replace(sys.argv[1])
