"""Fake agent: start a grandchild in its group (`cmd &`), pid to argv[1], exit at once.

With `--quiet` the grandchild's output goes to /dev/null; otherwise it inherits stdout
and stderr and so keeps the pipes open after the agent exits.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def write_pid(path: str, pid: int) -> None:
    # Written then renamed, so a test polling for the file never reads half a pid.
    tmp = Path(f"{path}.tmp")
    tmp.write_text(str(pid))
    tmp.replace(path)


quiet = "--quiet" in sys.argv[2:]
sink = subprocess.DEVNULL if quiet else None
child = subprocess.Popen(
    [sys.executable, "-c", "import time; time.sleep(30)"], stdout=sink, stderr=sink
)
write_pid(sys.argv[1], child.pid)
print("parent done", flush=True)
