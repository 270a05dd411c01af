"""Fake agent: print a tick every argv[2] s, argv[1] times, alternating stdout and stderr; with
argv[3], then wait (at most 120 s) until that file exists before it exits."""

from __future__ import annotations

import sys
import time
from pathlib import Path

for i in range(int(sys.argv[1])):
    stream = sys.stdout if i % 2 == 0 else sys.stderr
    print(f"tick {i}", file=stream, flush=True)
    time.sleep(float(sys.argv[2]))
if len(sys.argv) > 3:
    deadline = time.monotonic() + 120
    while not Path(sys.argv[3]).exists() and time.monotonic() < deadline:
        time.sleep(0.02)
