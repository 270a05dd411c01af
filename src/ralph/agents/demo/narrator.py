"""The demo's voice: short progress lines, paced so a watcher can follow them."""

from __future__ import annotations

import re
import time

# Narration quotes spec text; a tag inside it must not look like this agent's own signal.
TAG = re.compile(r"<\s*/?\s*(ralph|promise)\s*>", re.IGNORECASE)


class Narrator:
    """Prints short progress lines, spreading the configured delay over the first few."""

    def __init__(self, delay: float) -> None:
        self.step = delay / 3
        self.remaining = delay

    def say(self, verb: str, text: str = "") -> None:
        line = f"  {verb:<6} {text}".rstrip() if verb else text
        print(TAG.sub("[tag]", line), flush=True)
        pause = min(self.step, self.remaining)
        if pause > 0:
            time.sleep(pause)
            self.remaining -= pause
