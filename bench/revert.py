"""The revert and mutation checks' cost (checks/revert.py, checks/mutation.py) on a small Python
project, in ralph's own process.

A git repository of `FILES` small tracked files beside a `calc` package and `CASES` pytest cases;
the run's start copy taken; then an agent's work: `calc` fixed and one case added. Measured at a
decisive DONE: the spec's test command alone (one pytest run in room A), then the revert
check alone (the changed files found, two pytest runs with per-case results, the revert room
built), then the revert check again on the same tree with the cache off (the revert room
re-synced, nothing new to copy), and the mutation check on the same change (its 2 mutants:
the unmutated run traced, each mutant, the control run). Each figure is the median of 3. The
project and ralph's store are made in a temporary home, and removed at the end.
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import trees
from ralph.process.launcher import PLAIN

FILES = 1_000
CASES = 20
RUNS = 3
PYTEST = f"{sys.executable} -m pytest -q -p no:cacheprovider tests"
WRONG = "def mean(xs):\n    return sum(xs) * len(xs)\n"
RIGHT = "def mean(xs):\n    return sum(xs) / len(xs)\n"


def make_project(root: Path, env: dict[str, str]) -> None:
    trees.source_tree(root, FILES, ".txt", "value {i}\n", env)
    (root / ".gitignore").write_text(".ralph/\n__pycache__/\n")
    (root / "calc").mkdir()
    (root / "calc" / "__init__.py").write_text(WRONG)
    (root / "tests").mkdir()
    (root / "tests" / "__init__.py").write_text("")
    cases = "".join(f"\n\ndef test_{i}():\n    assert callable(mean)\n" for i in range(CASES))
    (root / "tests" / "test_calc.py").write_text("from calc import mean\n" + cases)
    trees.git(root, "add", "-A", env=env)
    trees.git(root, "commit", "-qm", "start", env=env)


def seconds(root: Path, spec: str, *, cache: bool) -> float:
    from ralph.checks.place import CheckPlace
    from ralph.checks.result import CheckCache
    from ralph.checks.runner import run_gate
    from ralph.specs.frontmatter import parse_front_matter
    from ralph.store.rooms.startcopy import start_copy

    place = CheckPlace(root, root, PLAIN)
    meta = parse_front_matter("PROMPT.md", spec)
    assert meta is not None
    room, code = place.for_checks(meta, "VERIFY")
    started = time.perf_counter()
    gate = run_gate(
        "PROMPT.md",
        root,
        spec_text=spec,
        meta=meta,
        env=code.env,
        run_root=room,
        cache=CheckCache() if cache else None,
        tree="t",
        start=start_copy(root),
        rooms=place.other_room,
    )
    assert gate.passed, gate.report()
    return time.perf_counter() - started


def main() -> None:
    with tempfile.TemporaryDirectory() as home:
        env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "HOME": home}
        os.environ.update(HOME=home, XDG_DATA_HOME=str(Path(home) / "data"))
        root = Path(home) / "proj"
        make_project(root, env)
        from ralph.checks.place import CheckPlace

        CheckPlace(root, root, PLAIN).start(copy=True)
        (root / "calc" / "__init__.py").write_text(RIGHT)
        test = root / "tests" / "test_calc.py"
        test.write_text(test.read_text() + "\n\ndef test_two():\n    assert mean([2, 4]) == 3\n")
        tests_only = f"---\ntest_command: {PYTEST}\n---\n"
        revert = f"---\nchecks:\n  - method: revert\n    config: {{command: {PYTEST}}}\n---\n"
        one = [seconds(root, tests_only, cache=True) for _ in range(RUNS)]
        first = seconds(root, revert, cache=True)  # builds the revert room
        again = [seconds(root, revert, cache=False) for _ in range(RUNS)]
        print(f"{FILES} files, {CASES + 1} test cases; median of {RUNS} where repeated")
        print(f"  test command alone (one pytest run):       {statistics.median(one):6.2f} s")
        print(f"  revert check, first (builds its room):     {first:6.2f} s")
        print(f"  revert check again (room re-synced):       {statistics.median(again):6.2f} s")
        mutation = f"---\nchecks:\n  - method: mutation\n    config: {{command: {PYTEST}}}\n---\n"
        mutated = [seconds(root, mutation, cache=False) for _ in range(RUNS)]
        print(f"  mutation check, 2 mutants (4 runs):        {statistics.median(mutated):6.2f} s")


if __name__ == "__main__":
    main()
