"""Wait until the file argv[1] exists (at most 120 s): a test opens the gate when the event it
waits for has happened, so an agent's step ends on an event, not after a guessed time."""

from __future__ import annotations

import sys
import time
from pathlib import Path

deadline = time.monotonic() + 120
while not Path(sys.argv[1]).exists() and time.monotonic() < deadline:
    time.sleep(0.02)
