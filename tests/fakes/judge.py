"""A real judge program for semantic checks: `judge.py ANSWER [LOG]`.

ANSWER is printed as its final line (`VERIFIED`, `NOT_VERIFIED: why`), or `crash` (exit 1),
`silent` (no verdict), `echo` (prints the prompt back and nothing else). A VERIFIED comes with
one evidence line per criterion, citing the spec's first line; `VERIFIED-BARE` cites nothing,
`VERIFIED-WRONG` misquotes it. With LOG, it appends
the mode, the model and the criteria it was asked about, one JSON line per call.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path


def main() -> int:
    answer = sys.argv[1]
    prompt = sys.stdin.read()
    if len(sys.argv) > 2:
        criteria = prompt.split("## Criteria to verify\n", 1)[-1].split("\n\n", 1)[0]
        record = {
            "mode": os.environ.get("RALPH_MODE"),
            "model": os.environ.get("RALPH_JUDGE_MODEL"),
            "criteria": criteria.splitlines(),
        }
        with Path(sys.argv[2]).open("a") as f:
            f.write(json.dumps(record) + "\n")
    if answer == "crash":
        print("judge exploded", file=sys.stderr)
        return 1
    if answer == "echo":
        sys.stdout.write(prompt)
        return 0
    print("I looked at the files.")
    if answer.startswith("VERIFIED"):
        spec = os.environ.get("RALPH_SPEC", "")
        first = Path(spec).read_text().splitlines()[0] if Path(spec).is_file() else ""
        if answer == "VERIFIED-WRONG":
            first += " (not quite)"
        criteria = prompt.split("## The spec", 1)[0]
        numbers = [line.split(".")[0] for line in criteria.splitlines() if line[:1].isdigit()]
        if answer != "VERIFIED-BARE":
            for n in numbers or ["1"]:
                print(f'EVIDENCE {n}: {spec}:1 "{first}"')
        answer = "VERIFIED"
    if answer != "silent":
        print(answer)
    return 0


if __name__ == "__main__":
    sys.exit(main())
