"""A stand-in for a real agent CLI: replays recorded output and records how it was called.

Configured by environment (set by the wrapper script a test puts first on PATH under the CLI's
name): FAKE_STDOUT / FAKE_STDERR are files whose bytes are printed, FAKE_EXIT the exit code,
FAKE_RECORD a JSON-lines file that gets argv, stdin, cwd and the environment of each call.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

stdin = sys.stdin.read()
record = os.environ.get("FAKE_RECORD")
if record:
    with Path(record).open("a") as f:
        call = {
            "argv": sys.argv[1:],
            "stdin": stdin,
            "cwd": str(Path.cwd()),
            "env": {k: v for k, v in os.environ.items() if not k.startswith("FAKE_")},
        }
        f.write(json.dumps(call) + "\n")
for name, stream in (("FAKE_STDOUT", sys.stdout.buffer), ("FAKE_STDERR", sys.stderr.buffer)):
    path = os.environ.get(name)
    if path:
        stream.write(Path(path).read_bytes())
        stream.flush()
sys.exit(int(os.environ.get("FAKE_EXIT", "0")))
