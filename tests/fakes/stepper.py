"""An agent that relies on its memory, as a real one does: it works through STEPS steps (default
3) of its spec, one per rotation, and does step N+1 only when its handoff says step N is done.

It finds its handoff, the guardrails and the question file where the prompt names them (paths
relative to its working folder, as a real agent reads them), never through ralph's variables.
Each step writes `<spec stem>-<N>.txt`, rewrites the handoff ("step N done") and appends a
lesson to the guardrails (with NOTE, when set, in both); once every step is done it answers
DONE and changes nothing. It logs each call (the step it did, the lessons it read, whether its
prompt carried a person's answer) to the file CALLS names. With ASK set it
writes its question to the question file and answers QUESTION at its first rotation.
"""

from __future__ import annotations

import json
import os
import re
import sys
from pathlib import Path


def _named(prompt: str, pattern: str) -> Path:
    found = re.search(pattern, prompt)
    assert found is not None, f"the prompt names no file for {pattern!r}"
    return Path(found.group(1))  # relative to the working folder, as the prompt says


def main() -> int:
    prompt = sys.stdin.read()
    mode = os.environ.get("RALPH_MODE")
    if mode == "VERIFY":
        print("<ralph>VERIFY_PASS</ralph>")
        return 0
    spec = os.environ["RALPH_SPEC"]
    stem = Path(spec).name.split(".")[0]
    handoff = _named(prompt, r"rewrite the handoff file `([^`]+)`")
    guardrails = _named(prompt, r"lessons \(commands that work, traps to avoid\) to\n`([^`]+)`")
    done = 0
    if handoff.is_file():
        steps = re.findall(r"^step (\d+) done$", handoff.read_text(), re.MULTILINE)
        done = max(map(int, steps), default=0)
    lessons = re.findall(r"^- lesson: .*$", guardrails.read_text(), re.MULTILINE)
    if os.environ.get("ASK") and done == 0:
        Path(".ralph/question.md").write_text(f"# {stem}: may I use the network?\n")
        signal, did = "QUESTION", 0
    elif done < int(os.environ.get("STEPS", "3")):
        did = done + 1
        Path(f"{stem}-{did}.txt").write_text(f"{stem} step {did}\n")
        note = os.environ.get("NOTE", "")  # copied from its environment into its notes
        record = "".join(f"step {n} done\n" for n in range(1, did + 1))
        handoff.write_text(f"# {spec}\n{record}{note}\n")
        with guardrails.open("a") as f:
            f.write(f"- lesson: {stem} step {did} {note}\n")
        signal = "CONTINUE"
    else:
        signal, did = "DONE", 0
    answered = "### Answer (.ralph/answer.md)" in prompt
    call = {"spec": spec, "did": did, "lessons": lessons, "cwd": str(Path.cwd())}
    with Path(os.environ["CALLS"]).open("a") as f:
        f.write(json.dumps({**call, "answered": answered}) + "\n")
    print(f"<ralph>{signal}</ralph>")
    return 0


if __name__ == "__main__":
    sys.exit(main())
