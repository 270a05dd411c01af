"""`make bench`: ralph's own cost per rotation next to `git status`, start-up time, memory.

Generates git repositories of 1,000 / 10,000 / 50,000 small files, runs `ralph run` with an
agent that does nothing but say DONE, and reads the per-rotation overhead ralph records in
`.ralph/worklog.jsonl` (rotation wall time minus the agent's own time). Prints a table.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import trees

SIZES = (1_000, 10_000, 50_000)
SPECS = 4  # 3 rotations each to reach 3/3
RALPH = [str(Path(sys.executable).with_name("ralph"))]  # the installed console script
ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "NO_COLOR": "1"}
ENV.pop("PYTHONDONTWRITEBYTECODE", None)  # measure start-up as an installed ralph runs it

# Answers the final verification too, so the run ends 0 after every spec reaches 3/3.
DONE_AGENT = (
    "#!/bin/sh\ncat > /dev/null\n"
    "if [ \"$RALPH_MODE\" = VERIFY ]; then echo '<ralph>VERIFY_PASS</ralph>'; exit 0; fi\n"
    "echo '<ralph>DONE</ralph>'\n"
)
LINES_AGENT = "#!/bin/sh\ncat > /dev/null\nyes | head -c 20000000\necho '<ralph>DONE</ralph>'\n"
FLOOD_AGENT = (
    "#!/bin/sh\ncat > /dev/null\n"
    "head -c 1073741824 /dev/zero | tr '\\0' 'x'\necho\necho '<ralph>DONE</ralph>'\n"
)


def git(root: Path, *args: str) -> None:
    trees.git(root, *args, env=ENV)


def make_tree(root: Path, files: int) -> None:
    trees.source_tree(root, files, ".txt", "file {i}\n", ENV)
    (root / "specs").mkdir()
    for n in range(SPECS):
        (root / "specs" / f"s{n}.spec.md").write_text(f"# spec {n}\n- [ ] nothing\n")
    (root / "agent.sh").write_text(DONE_AGENT)
    (root / "flood.sh").write_text(FLOOD_AGENT)
    (root / "lines.sh").write_text(LINES_AGENT)
    (root / "lines.sh").chmod(0o755)
    (root / "agent.sh").chmod(0o755)
    (root / "flood.sh").chmod(0o755)
    (root / ".gitignore").write_text(".ralph/\nnode_modules/\n")
    nm = root / "node_modules" / "pkg"  # ignored: must cost nothing
    nm.mkdir(parents=True)
    for i in range(2_000):
        (nm / f"m{i}.js").write_text("x\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "tree")


def timed(cmd: list[str], cwd: Path, runs: int) -> float:
    samples = []
    for _ in range(runs):
        t = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, check=True, capture_output=True, env=ENV)
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def run_ralph(root: Path, agent: str, *extra: str, ok: tuple[int, ...] = (0,)) -> float:
    """Run ralph from a fresh state; returns the max RSS of ralph in MB."""
    from ralph.store.disk.private import store_dir

    shutil.rmtree(root / ".ralph", ignore_errors=True)
    shutil.rmtree(store_dir(root), ignore_errors=True)  # what ralph believes: from scratch too
    proc = subprocess.Popen(
        [*RALPH, "run", "--plain", "--agent-command", agent, *extra],
        cwd=root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=ENV,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode not in ok:
        err = proc.stderr.read().decode() if proc.stderr else ""
        raise SystemExit(f"ralph run failed ({proc.returncode}) in {root}: {err}")
    # ru_maxrss is the largest of ralph and the children it waited for, in KiB on Linux
    return usage.ru_maxrss / 1024


def overheads(root: Path) -> list[float]:
    lines = (root / ".ralph" / "worklog.jsonl").read_text().splitlines()
    return [e["overhead_ms"] for e in map(json.loads, lines) if e["event"] == "rotation_end"]


def main() -> None:
    base = Path(tempfile.mkdtemp(prefix="ralph-bench-"))
    # ralph's private stores of the bench's projects go with them, not into the user's home
    os.environ["XDG_STATE_HOME"] = ENV["XDG_STATE_HOME"] = str(base / "state")
    try:
        print("ralph per-rotation overhead (median) vs `git status --porcelain` (median of 7)")
        print(f"{'files':>8} {'ralph ms':>10} {'git ms':>8} {'ratio':>6} {'max RSS MB':>11}")
        for files in SIZES:
            root = base / f"t{files}"
            make_tree(root, files)
            git_s = timed(["git", "status", "--porcelain"], root, 7)
            rss = run_ralph(root, "./agent.sh")
            per = statistics.median(overheads(root))
            ratio = per / (git_s * 1000)
            print(f"{files:>8} {per:>10.1f} {git_s * 1000:>8.1f} {ratio:>6.2f} {rss:>11.1f}")

        small = base / f"t{SIZES[0]}"
        print()
        print("start-up (median of 10, warm)")
        help_s = timed([*RALPH, "--help"], small, 10)
        status_s = timed([*RALPH, "status"], small, 10)
        print(f"  ralph --help   {help_s * 1000:6.0f} ms")
        print(f"  ralph status   {status_s * 1000:6.0f} ms")

        print()
        print("memory with an agent that prints 1 GB without a newline")
        t = time.perf_counter()
        rss = run_ralph(small, "./flood.sh", "--max-iterations", "1", ok=(3,))
        print(f"  max RSS {rss:.1f} MB, one 1 GB rotation in {time.perf_counter() - t:.1f} s")

        print()
        print("an agent that prints 10 million 2-byte lines (20 MB)")
        t = time.perf_counter()
        rss = run_ralph(small, "./lines.sh", "--max-iterations", "1", ok=(3,))
        elapsed = time.perf_counter() - t
        print(f"  read in {elapsed:.1f} s ({10 / elapsed:.1f} M lines/s), max RSS {rss:.1f} MB")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
