"""A real agent program for tests: does what a JSON script says for each rotation of each spec.

Usage: scripted_agent.py SCRIPT.json. The script maps a spec path (or "*") to a list of steps;
the Nth rotation of a spec runs its Nth step (the last step repeats). Run as a semantic check's
judge (RALPH_MODE=JUDGE) it prints the script's "JUDGE" answer (default VERIFIED). A final
verification (RALPH_MODE=VERIFY) runs the steps under "VERIFY" instead (default: answer
VERIFY_PASS). Each call is appended to SCRIPT.json.calls.jsonl with the environment ralph
passed, so tests can check it.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, Protocol


class Writer(Protocol):
    """An output stream: sys.stdout or sys.stderr, or the in-process agent's pipes."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...


def main() -> int:
    return play(Path(sys.argv[1]), sys.stdin.read(), os.environ, Path.cwd(), sys.stdout, sys.stderr)


def play(
    script_path: Path,
    prompt: str,
    env: Mapping[str, str],
    cwd: Path,
    out: Writer,
    err: Writer,
    sleep: Callable[[float], object] = time.sleep,
) -> int:
    """One call: the step the script gives it, done in `cwd`; returns the exit code.

    The one implementation of a step, for this program and for the in-process agent
    (tests/fakes/scripted_inline.py), which passes its own streams and an interruptible sleep.
    """
    script: dict[str, Any] = json.loads(script_path.read_text())
    spec = env.get("RALPH_SPEC", "")
    mode = env.get("RALPH_MODE")
    calls_path = script_path.with_name(script_path.name + ".calls.jsonl")
    if mode == "JUDGE":
        # a semantic check's judge: answer as the script's "JUDGE" key says
        with calls_path.with_name(calls_path.name + ".judge").open("a") as f:
            f.write(json.dumps({"spec": spec, "model": env.get("RALPH_MODEL")}) + "\n")
        answer = script.get("JUDGE", "VERIFIED")
        if answer.startswith("VERIFIED") and script.get("JUDGE_CITES", True):
            print(_evidence(prompt, cwd, spec), file=out)  # a judge cites evidence
        print(answer, file=out)
        return 0
    previous = (
        [json.loads(line) for line in calls_path.read_text().splitlines()]
        if calls_path.exists()
        else []
    )
    if mode == "VERIFY":
        nth = sum(1 for call in previous if call["mode"] == "VERIFY")
        steps = script.get("VERIFY") or [{"signal": "VERIFY_PASS"}]
    else:
        nth = sum(1 for call in previous if call["spec"] == spec and call["mode"] != "VERIFY")
        steps = script.get(spec) or script.get("*") or [{"signal": "DONE"}]
    step = steps[min(nth, len(steps) - 1)]
    prompt_file = env.get("RALPH_PROMPT_FILE", "")
    record = {
        "spec": spec,
        "mode": mode,
        "model": env.get("RALPH_MODEL"),
        "specs": env.get("RALPH_SPECS", "").split("\n"),
        "iteration": env.get("RALPH_ITERATION"),
        "state_dir": env.get("RALPH_STATE_DIR"),
        "handoff": env.get("RALPH_HANDOFF_FILE"),
        "cwd": str(cwd),
        "stdin_len": len(prompt),
        "prompt_file_same": bool(prompt_file) and Path(prompt_file).read_text() == prompt,
        "prompt_head": prompt[:200],
        "run_json": _run_json(env.get("RALPH_STATE_DIR", "")),
        "traceparent": env.get("TRACEPARENT"),
    }
    with calls_path.open("a") as f:
        f.write(json.dumps(record) + "\n")

    if step.get("echo_prompt"):
        out.write(prompt)
    if "run" in step:  # a shell command in the working folder (e.g. `git merge main`)
        subprocess.run(step["run"], shell=True, cwd=cwd, env=env, check=False)
    for path, content in step.get("write", {}).items():
        (cwd / path).parent.mkdir(parents=True, exist_ok=True)
        (cwd / path).write_text(content)
    for path in step.get("delete", []):
        (cwd / path).unlink()
    if "commit" in step:
        subprocess.run(["git", "add", "-A"], cwd=cwd, env=env, check=True)
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", step["commit"]],
            cwd=cwd,
            env=env,
            check=True,
        )
    if "say" in step:
        print(step["say"], file=out)
    if "stderr" in step:
        print(step["stderr"], file=err)
    out.flush()
    if "sleep" in step:
        sleep(step["sleep"])
    if step.get("signal"):
        print(f"<ralph>{step['signal']}</ralph>", file=out)
    return int(step.get("exit", 0))


def _run_json(state_dir: str) -> Any:
    """What `.ralph/run.json` said while this rotation ran (the live run's record)."""
    try:
        return json.loads((Path(state_dir) / "run.json").read_text())
    except (OSError, ValueError):
        return None


def _evidence(prompt: str, cwd: Path, spec: str) -> str:
    """One valid citation per numbered criterion of a judge's prompt: the spec's first line."""
    import re

    first = (cwd / spec).read_text().splitlines()[0] if (cwd / spec).is_file() else ""
    numbers = re.findall(r"^(\d+)\. ", prompt.split("## The spec", maxsplit=1)[0], flags=re.M) or [
        "1"
    ]
    return "\n".join(f'EVIDENCE {n}: {spec}:1 "{first}"' for n in numbers)


if __name__ == "__main__":
    sys.exit(main())
