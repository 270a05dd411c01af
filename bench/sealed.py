"""The sealed run's cost at a DONE (checks/sealed.py): what a DONE pays on top of its checks.

Generates git repositories of 100 / 1,000 / 10,000 small tracked files plus a `calc` package,
a visible test and a sealed test (unittest), and measures in ralph's own process: the spec's
test command in room A (what the DONE runs anyway), then the whole sealed run (room A synced
with the sealed file and without the other test files, the same test command there, room A
synced back, the work tree's snapshot before and after, the look for a copy), the first time
(room A built before it, as the DONE's checks leave it) and again on the unchanged tree.
Medians of 3. Prints a table.
"""

from __future__ import annotations

import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trees
from ralph.process.launcher import PLAIN

SIZES = (100, 1_000, 10_000)
RUNS = 3
ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}
TEST = (
    "import unittest\nfrom calc import mean\n\n\nclass T(unittest.TestCase):\n"
    "    def test_{n}(self):\n        self.assertEqual(mean([2, 4]), 3)\n"
)


def make_project(root: Path, files: int) -> None:
    trees.source_tree(root, files, ".txt", "value {i}\n", ENV)
    (root / ".gitignore").write_text(".ralph/\n__pycache__/\n")
    (root / "calc").mkdir()
    (root / "calc" / "__init__.py").write_text("def mean(xs):\n    return sum(xs) / len(xs)\n")
    (root / "tests").mkdir()
    (root / "tests" / "__init__.py").write_text("")
    (root / "tests" / "test_visible.py").write_text(TEST.format(n="visible"))
    command = f"{sys.executable} -m unittest discover -s tests -t ."
    (root / "PROMPT.md").write_text(f"---\ntest_command: {command}\n---\n# mean\n")
    trees.git(root, "add", "-A", env=ENV)
    trees.git(root, "commit", "-qm", "tree", env=ENV)


def ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def measure(root: Path, state: Path) -> tuple[float, float, float]:
    """(the test command in room A, the sealed run first, the sealed run again) in ms."""
    from ralph.checks.command import run_command
    from ralph.checks.place import CheckPlace
    from ralph.checks.result import GateResult
    from ralph.checks.sealed import sealed_gate, test_command
    from ralph.checks.testguard import TestGuard
    from ralph.store.person import sealed

    shutil.rmtree(state, ignore_errors=True)
    sealed.add(root, "tests/test_sealed.py", ("PROMPT.md",), TEST.format(n="sealed").encode())
    place = CheckPlace(root, root, PLAIN)
    place.start()
    tests = TestGuard(root, root / ".ralph")
    tests.start()
    cfg = test_command(root, "PROMPT.md")
    assert cfg is not None
    room, env = place.here()
    t = time.perf_counter()
    assert run_command(cfg, room, env, room=room, launcher=PLAIN).passed
    visible = ms(t)
    out = [visible]
    for _ in range(2):
        t = time.perf_counter()
        gate = sealed_gate(
            GateResult(True, ()),
            project=root,
            spec="PROMPT.md",
            meta=None,
            place=place.sealed_room(tests),
        )
        out.append(ms(t))
        assert gate.passed, gate.reasons
    return out[0], out[1], out[2]


def main() -> None:
    base = Path(tempfile.mkdtemp(prefix="ralph-bench-sealed-", dir=Path.home()))
    state = base / "state"
    os.environ["XDG_STATE_HOME"] = str(state)
    print("| tracked files | test command (room A) | sealed run, first | sealed run, again |")
    print("|---:|---:|---:|---:|")
    try:
        for size in SIZES:
            root = base / f"p{size}"
            make_project(root, size)
            runs = [measure(root, state) for _ in range(RUNS)]
            cols = [statistics.median(r[i] for r in runs) for i in range(3)]
            print(f"| {size:,} | {cols[0]:.0f} ms | {cols[1]:.0f} ms | {cols[2]:.0f} ms |")
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
