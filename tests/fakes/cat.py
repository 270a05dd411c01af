"""Fake agent: copy stdin to stdout, report cwd and env on stderr, exit with argv[1]."""

from __future__ import annotations

import os
import sys
from pathlib import Path

while chunk := sys.stdin.buffer.read(65536):
    sys.stdout.buffer.write(chunk)
sys.stdout.flush()
sys.stderr.write(f"cwd={Path.cwd()}\nmark={os.environ.get('RALPH_FAKE_MARK', '')}\n")
sys.exit(int(sys.argv[1]) if len(sys.argv) > 1 else 0)
