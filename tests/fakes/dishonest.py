"""Dishonest agents: `dishonest.py KIND`, each a way of claiming work that was not done.

- `liar`: says DONE and does nothing;
- `ticker`: ticks every checkbox of its spec, writes no code, says DONE;
- `midway`: says DONE, then keeps editing (breaks the code) and ends without another signal;
- `echo`: prints its prompt back (with every tag and promise in it) and nothing of its own.
"""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path


def main() -> int:
    kind = sys.argv[1]
    prompt = sys.stdin.read()
    spec = Path(os.environ["RALPH_SPEC"])
    if kind == "echo":
        sys.stdout.write(prompt)
        return 0
    if kind == "ticker":
        spec.write_text(re.sub(r"^(\s*[-*] )\[ \]", r"\1[x]", spec.read_text(), flags=re.M))
    if kind == "midway":
        print("<ralph>DONE</ralph>", flush=True)
        Path("calc.py").write_text("def add(a, b):\n    return a - b\n")
        spec.write_text(re.sub(r"^(\s*[-*] )\[ \]", r"\1[x]", spec.read_text(), flags=re.M))
        print("(still editing after the DONE)")
        return 0
    print("All done, every test passes.")
    print("<ralph>DONE</ralph>")
    return 0


if __name__ == "__main__":
    sys.exit(main())
