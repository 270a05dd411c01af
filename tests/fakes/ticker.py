"""Fake agent: print a tick every argv[2] s, argv[1] times, alternating stdout and stderr."""

from __future__ import annotations

import sys
import time

for i in range(int(sys.argv[1])):
    stream = sys.stdout if i % 2 == 0 else sys.stderr
    print(f"tick {i}", file=stream, flush=True)
    time.sleep(float(sys.argv[2]))
