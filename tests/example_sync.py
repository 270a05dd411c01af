"""Record `.ralph-example/.ralph/` from a real demo run, and read it back for comparison.

`make example` re-records it; tests/e2e/test_example.py fails when the recording and a fresh run
differ, so the bundled example can never go stale.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / ".ralph-example"
# Files of a run that differ from run to run (times, PIDs, commits) or duplicate others.
SKIPPED = {
    ".gitignore",  # .ralph/ ignores itself; the recording is committed with `git add -f`
    "run.json",
    "run.lock",
    "snapshot.json",
    "ignore-rules.json",  # the machine's own excludes file is part of them
    "index-flags.json",
    "current.log",
    "prompt.md",
    "judge-prompt.md",  # a semantic check's last judge prompt: like prompt.md
    "worklog.jsonl",
}
_VOLATILE = [
    (re.compile(r"started=\S+"), "started=<time>"),
    (re.compile(r"elapsed=[0-9.]+s"), "elapsed=<s>"),
    (re.compile(r'"saved_at": [0-9.]+'), '"saved_at": "<time>"'),
    (re.compile(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d[+-]\d{4}"), "<time>"),  # progress.md
]
_ARCHIVE = re.compile(r"^archive/\d{8}-\d{6}(-\d+)?/")  # a verified run's archive folder


def normalize(text: str) -> str:
    for pattern, replacement in _VOLATILE:
        text = pattern.sub(replacement, text)
    return text


def read_recording(state_dir: Path) -> dict[str, str]:
    files: dict[str, str] = {}
    for path in sorted(state_dir.rglob("*")):
        if path.is_file() and path.name not in SKIPPED:
            rel = _ARCHIVE.sub("archive/YYYYmmdd-HHMMSS/", path.relative_to(state_dir).as_posix())
            files[rel] = normalize(path.read_text(encoding="utf-8", errors="replace"))
    return files


def run_demo(workdir: Path) -> tuple[subprocess.CompletedProcess[str], Path]:
    """Copy the example (without its recording) to `workdir` and run the demo agent there."""
    project = workdir / "demo"
    shutil.copytree(EXAMPLE, project, ignore=shutil.ignore_patterns(".ralph"))
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    env = {**os.environ, "RALPH_DEMO_DELAY": "0", "NO_COLOR": "1"}
    proc = subprocess.run(
        [sys.executable, "-m", "ralph", "run", "--agent", "demo", "--plain"],
        cwd=project,
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    return proc, project


def record(example: Path = EXAMPLE) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        proc, project = run_demo(Path(tmp))
        if proc.returncode != 0:
            raise SystemExit(f"demo run failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
        target = example / ".ralph"
        shutil.rmtree(target, ignore_errors=True)
        for rel, text in read_recording(project / ".ralph").items():
            path = target / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(text, encoding="utf-8")
    print(f"recorded {target}")


if __name__ == "__main__":
    record()
