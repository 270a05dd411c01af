"""`make bench`, prompts: how much of each REVIEW prompt a provider can serve from its prompt cache,
and how many of a prompt's tokens are ralph's own words.

Runs the bundled example (`.ralph-example`) with the demo agent behind a recorder that keeps every
prompt, then, for each REVIEW prompt, measures the byte-identical prefix it shares with the
previous prompt of the same spec (what a provider's prompt cache can reuse; the target is 80 % or
more). ralph's own words are the prompt with the spec, the handoff, the guardrails and the other
specs' list left empty, in tokens (about four bytes a token).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
RALPH = [str(Path(sys.executable).with_name("ralph"))]
BYTES_PER_TOKEN = 4  # a rough, model-independent rule of thumb
TARGET = 0.80

# Keeps the prompt (stdin) with the spec and mode ralph passed, then runs the demo agent on it.
RECORDER = """\
import json, os, subprocess, sys
from pathlib import Path
prompt = sys.stdin.read()
out = Path(os.environ["BENCH_PROMPTS"])
n = len(list(out.glob("*.json")))
env = os.environ
record = {"spec": env.get("RALPH_SPEC"), "mode": env.get("RALPH_MODE"), "prompt": prompt}
(out / f"{n:04d}.json").write_text(json.dumps(record))
demo = subprocess.run([sys.executable, "-m", "ralph.agents.demo"], input=prompt, text=True)
sys.exit(demo.returncode)
"""


def record_prompts(work: Path) -> list[dict[str, str]]:
    root = work / "example"
    shutil.copytree(REPO / ".ralph-example", root, ignore=shutil.ignore_patterns(".ralph"))
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    prompts = work / "prompts"
    prompts.mkdir()
    (work / "recorder.py").write_text(RECORDER)
    env = {**os.environ, "BENCH_PROMPTS": str(prompts), "NO_COLOR": "1"}
    env["XDG_STATE_HOME"] = str(prompts.parent / "state")  # ralph's private store goes too
    command = f"{sys.executable} {work / 'recorder.py'}"
    done = subprocess.run(
        [*RALPH, "run", "--plain", "--quiet", "--agent-command", command],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        sys.exit(f"the example run failed (exit {done.returncode}):\n{done.stderr}")
    return [json.loads(p.read_text()) for p in sorted(prompts.glob("*.json"))]


def shared_prefix(a: bytes, b: bytes) -> int:
    n = min(len(a), len(b))
    i = 0
    while i < n and a[i] == b[i]:
        i += 1
    return i


def review_shares(prompts: list[dict[str, str]]) -> list[float]:
    """Per REVIEW prompt: its share that is a byte-identical prefix of the previous prompt of
    the same spec."""
    last: dict[str, bytes] = {}
    shares: list[float] = []
    for p in prompts:
        if p["mode"] not in ("IMPLEMENT", "REVIEW"):
            continue
        text = p["prompt"].encode()
        before = last.get(p["spec"])
        if p["mode"] == "REVIEW" and before is not None:
            shares.append(shared_prefix(before, text) / len(text))
        last[p["spec"]] = text
    return shares


def own_tokens() -> dict[str, int]:
    """ralph's own words per prompt, in tokens: the template with no user content."""
    from ralph.rules.text.prompt import Mode, PromptInput, build_prompt

    out: dict[str, int] = {}
    modes: tuple[Mode, ...] = ("IMPLEMENT", "REVIEW")
    for mode in modes:
        bare = build_prompt(
            PromptInput(
                spec_path="specs/x.spec.md",
                spec_text="",
                mode=mode,
                iteration=1,
                max_iteration=20,
                done_count=0,
                handoff_path=".ralph/handoffs/x.md",
                handoff_text="",
                guardrails_path=".ralph/guardrails.md",
                guardrails_text="",
            )
        )
        out[mode] = len(bare.encode()) // BYTES_PER_TOKEN
    return out


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="ralph-bench-prompts-") as tmp:
        prompts = record_prompts(Path(tmp))
    shares = review_shares(prompts)
    sizes = [len(p["prompt"].encode()) for p in prompts if p["mode"] in ("IMPLEMENT", "REVIEW")]
    print("prompts of the bundled example (cache-friendly order: what stays the same comes first)")
    if shares:
        mean = statistics.mean(shares)
        print(
            f"  REVIEW prompts: {len(shares)}; byte-identical prefix shared with the spec's "
            f"previous prompt: mean {mean:.0%}, min {min(shares):.0%} (target {TARGET:.0%}+)"
        )
    print(f"  prompt size: median {int(statistics.median(sizes)) // BYTES_PER_TOKEN} tokens")
    words = own_tokens()
    print(
        "  ralph's own words: "
        + ", ".join(f"{mode} {n} tokens" for mode, n in words.items())
        + f" (about {BYTES_PER_TOKEN} bytes a token)"
    )


if __name__ == "__main__":
    main()
