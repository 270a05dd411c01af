"""`make bench`: 4 independent specs with an agent that takes a fixed 2 s per rotation, verified
with `--parallel 4` and with `--parallel 1` on the same machine in one run; the ratio of the
wall times (the target is at most 0.40 of the sequential time)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trees

SPECS = 4
AGENT_SECONDS = 2
RALPH = [str(Path(sys.executable).with_name("ralph"))]
ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "NO_COLOR": "1"}

# IMPLEMENT writes its spec's own file; every call takes AGENT_SECONDS; VERIFY passes.
AGENT = f"""#!/bin/sh
cat > /dev/null
sleep {AGENT_SECONDS}
if [ "$RALPH_MODE" = VERIFY ]; then echo '<ralph>VERIFY_PASS</ralph>'; exit 0; fi
if [ "$RALPH_MODE" = IMPLEMENT ]; then
  echo done > "out-$(basename "$RALPH_SPEC" .spec.md).txt"
fi
echo '<ralph>DONE</ralph>'
"""


def git(root: Path, *args: str) -> None:
    trees.git(root, *args, env=ENV)


def project(base: Path, name: str) -> Path:
    root = base / name
    (root / "specs").mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    for n in range(SPECS):
        (root / "specs" / f"s{n}.spec.md").write_text(f"# spec {n}\n- [ ] out-s{n}.txt\n")
    (root / ".gitignore").write_text(".ralph/\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "specs")
    return root


def verify(root: Path, agent: Path, parallel: int) -> tuple[float, int]:
    """Wall seconds to verify every spec, and the rotations it took."""
    started = time.perf_counter()
    proc = subprocess.run(
        [
            *RALPH,
            "run",
            "--headless",
            "-q",
            "-n",
            "100",
            "--parallel",
            str(parallel),
            "--agent-command",
            f"sh {agent}",
        ],
        cwd=root,
        capture_output=True,
        text=True,
        env=ENV,
        check=False,
    )
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        sys.exit(f"--parallel {parallel} ended with {proc.returncode}:\n{proc.stdout}{proc.stderr}")
    state = json.loads(
        (root / ".ralph" / "archive").joinpath(_last(root), "state.json").read_text()
    )
    return elapsed, int(state["iteration"])


def _last(root: Path) -> str:
    return sorted(p.name for p in (root / ".ralph" / "archive").iterdir() if p.name[0].isdigit())[
        -1
    ]


def main() -> None:
    with tempfile.TemporaryDirectory() as tmp:
        base = Path(tmp)
        ENV["XDG_STATE_HOME"] = str(base / "state")  # ralph's private stores go with the runs
        agent = base / "agent.sh"
        agent.write_text(AGENT)
        print(f"{SPECS} independent specs, an agent taking {AGENT_SECONDS} s per rotation")
        seq, seq_n = verify(project(base, "sequential"), agent, 1)
        par, par_n = verify(project(base, "parallel"), agent, SPECS)
        print(f"  --parallel 1  {seq:6.1f} s  ({seq_n} rotations)")
        print(f"  --parallel {SPECS}  {par:6.1f} s  ({par_n} rotations)")
        print(f"  ratio         {par / seq:6.2f}  (target <= 0.40)")


if __name__ == "__main__":
    main()
