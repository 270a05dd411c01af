"""`make bench`: what the checks of a counted DONE cost, in runs of the spec's own test command.

A small Python project (a pytest suite of some 1-2 s) gets an agent that changes a line of
code and says DONE, rotation after rotation; every DONE runs the spec's checks (the test
command in the clean room, and whatever else ralph adds). The figure is the DONE gate's wall
time (in the worklog: from the agent's end to the `done_gate` record) divided by one run of
the test command in the project, as a person runs it. Measured for:
- `python -m pytest`, and `.venv/bin/python -m pytest` (the project's own virtualenv);
- a change of code only, and a change of code and tests (the person's tests run again);
- the project alone, and with 10,000 more tracked files.
The first DONE (the room's first build) is left out: the figure is a DONE in the middle of a
run. Prints a table.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import sysconfig
import tempfile
import time
from pathlib import Path

import trees

RALPH = [str(Path(sys.executable).with_name("ralph"))]
ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "NO_COLOR": "1"}
ENV.pop("PYTHONDONTWRITEBYTECODE", None)
ENV["PATH"] = f"{Path(sys.executable).parent}{os.pathsep}{ENV.get('PATH', '')}"
ROTATIONS = 5
RUN_OPTIONS = ("--max-iterations", str(ROTATIONS), "--on-escalation", "continue")
TEST_FILES = 20

AGENT = """#!/bin/sh
cat > /dev/null
if [ "$RALPH_MODE" = VERIFY ]; then echo '<ralph>VERIFY_PASS</ralph>'; exit 0; fi
echo "# $RALPH_ITERATION" >> src/calc.py
{tests}
echo '<ralph>DONE</ralph>'
"""
TEST = """import time
from calc import mean


def test_mean_{i}():
    end = time.perf_counter() + 0.03
    while time.perf_counter() < end:
        pass
    assert mean([1, 2, 3]) == 2
"""


def make_project(root: Path, files: int, command: str, tests_too: bool) -> None:
    trees.source_tree(root, files, ".txt", "data {i}\n", ENV)
    (root / "src").mkdir(exist_ok=True)
    (root / "src" / "calc.py").write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    (root / "tests").mkdir()
    for i in range(TEST_FILES):
        (root / "tests" / f"test_calc_{i}.py").write_text(TEST.format(i=i))
    (root / "pytest.ini").write_text("[pytest]\npythonpath = src\n")
    (root / "specs").mkdir()
    front = f"---\ntest_command: {command}\n---\n"
    (root / "specs" / "calc.spec.md").write_text(f"{front}# mean\n- [ ] mean works\n")
    touch = 'echo "# $RALPH_ITERATION" >> tests/test_calc_0.py' if tests_too else ""
    (root / "agent.sh").write_text(AGENT.format(tests=touch))
    (root / "agent.sh").chmod(0o755)
    (root / ".gitignore").write_text(".ralph/\n.venv/\n__pycache__/\n")
    if command.startswith(".venv/"):
        subprocess.run(
            [sys.executable, "-m", "venv", "--without-pip", str(root / ".venv")], check=True
        )
        site = next((root / ".venv" / "lib").glob("python3*/site-packages"))
        # the bench's own site-packages (pytest) on the project's virtualenv's path
        (site / "bench.pth").write_text(sysconfig.get_paths()["purelib"] + "\n")
    trees.git(root, "add", "-A", env=ENV)
    trees.git(root, "-c", "user.name=b", "-c", "user.email=b@b", "commit", "-qm", "p", env=ENV)


def test_run(root: Path, command: str) -> float:
    samples = []
    for _ in range(3):
        t = time.perf_counter()
        subprocess.run(command, shell=True, cwd=root, check=True, capture_output=True, env=ENV)
        samples.append(time.perf_counter() - t)
    return statistics.median(samples)


def done_costs(root: Path) -> tuple[list[float], float]:
    """(the seconds of each DONE's gate after the first, check records per DONE)."""
    proc = subprocess.run(
        [*RALPH, "run", "--plain", "--agent-command", "./agent.sh", *RUN_OPTIONS],
        cwd=root,
        capture_output=True,
        env=ENV,
        check=False,
    )
    if proc.returncode not in (0, 3):
        raise SystemExit(f"ralph run failed ({proc.returncode}): {proc.stderr.decode()[-2000:]}")
    events = [json.loads(line) for line in (root / ".ralph" / "worklog.jsonl").open()]
    refused = [e.get("note") for e in events if e.get("signal") == "REFUSED"]
    if refused:
        raise SystemExit(f"a DONE was refused in {root}: {refused}")
    by: dict[int, dict[str, dict[str, object]]] = {}
    checks = 0
    for e in events:
        it = e.get("iteration")
        if isinstance(it, int) and it > 1:
            by.setdefault(it, {})[e["event"]] = e
            checks += e["event"] == "check"
    costs = []
    for _, seen in sorted(by.items()):
        if "done_gate" not in seen or "rotation_start" not in seen:
            continue
        # the gate's wall time: from the agent's end to the verdict
        start, agent = seen["rotation_start"]["ts"], seen["rotation_end"]["agent_s"]
        end = seen["done_gate"]["ts"]
        costs.append(float(str(end)) - float(str(start)) - float(str(agent)))
    return costs, checks / max(1, len(costs))


def main() -> None:
    base = Path(tempfile.mkdtemp(prefix="ralph-bench-done-"))
    os.environ["XDG_STATE_HOME"] = ENV["XDG_STATE_HOME"] = str(base / "state")
    try:
        print("a DONE's checks in runs of the test command (median of the DONEs after the first)")
        head = f"{'files':>6} {'command':<28} {'change':<12} {'test s':>7} {'checks s':>9}"
        print(f"{head} {'runs':>6} {'checks/DONE':>12}")
        n = 0
        for files in (0, 10_000):
            for command in ("python -m pytest -q", ".venv/bin/python -m pytest -q"):
                for tests_too in (False, True):
                    n += 1
                    root = base / f"p{n}"
                    make_project(root, files, command, tests_too)
                    once = test_run(root, command)
                    costs, per = done_costs(root)
                    cost = statistics.median(costs)
                    change = "code+tests" if tests_too else "code"
                    line = f"{files:>6} {command:<28} {change:<12} {once:>7.2f} {cost:>9.2f}"
                    print(f"{line} {cost / once:>6.2f} {per:>12.1f}", flush=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
