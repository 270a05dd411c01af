"""Fake agent: print argv[1] MiB of every byte value, then the marker THE-END (no newline)."""

from __future__ import annotations

import sys

BLOCK = bytes(range(256)) * 4096  # 1 MiB
out = sys.stdout.buffer
for _ in range(int(sys.argv[1])):
    out.write(BLOCK)
out.write(b"THE-END")
out.flush()
