"""kill -9 at any point of a real `ralph run`: the next start leaves no temporary file of ralph's
in `.ralph/` or the store, and the state on disk is always one the worklog explains.

Deterministic: the kill points come from a seeded generator, and each kill waits for an event
(the worklog's Nth line), never for a time. Two specs so counters move both ways: `a` says DONE
without a change (up to 3/3), `b` changes a file at every DONE (dropping `a` to 2/3).
"""

from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from ralph.store.files import TEMP_NAME, folders_below
from tests.conftest import Project

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="SIGKILL"),
]

KILLS = 30
WAIT = 120.0  # generous: an event, not a guess; a loaded machine only makes it later


def _lines(path: Path) -> list[str]:
    try:
        return path.read_text(encoding="utf-8", errors="replace").splitlines()
    except FileNotFoundError:
        return []


def _temps(project: Project) -> set[Path]:
    found: set[Path] = set()
    places = [
        *folders_below(project.root / ".ralph", depth=4, skip=frozenset({"worktrees"})),
        *folders_below(project.store, depth=4, skip=frozenset({"rooms"})),
    ]
    for folder in places:
        try:
            found |= {p for p in folder.iterdir() if TEMP_NAME.match(p.name)}
        except OSError:
            continue
    return found


def _explained(records: list[dict[str, Any]], state: dict[str, Any]) -> list[str]:
    """Why the state is not one the worklog explains (empty when it is): a spec's counter
    rises only through a rotation of its own, which is recorded before the state that counts
    it; anything else (another spec's change, a start-of-run drop) only lowers it."""
    last: dict[str, int] = {}
    ended = 0
    for rec in records:
        if rec.get("event") == "rotation_end" and isinstance(rec.get("done_count"), int):
            last[str(rec.get("spec"))] = rec["done_count"]
            ended = max(ended, int(rec.get("iteration") or 0))
    problems = [
        f"{row['path']} at {row['done_count']}/3 where its last recorded rotation allows "
        f"{last.get(row['path'], 0)}/3"
        for row in state.get("specs", [])
        if row.get("done_count", 0) > last.get(row["path"], 0)
    ]
    if state.get("last_rotation", 0) < ended:
        problems.append(f"state at rotation {state.get('last_rotation')}, worklog at {ended}")
    return problems


def _wait_lines(worklog: Path, count: int, proc: subprocess.Popen[bytes]) -> bool:
    """True once the worklog has `count` lines; False when the run ended first."""
    deadline = time.monotonic() + WAIT
    while time.monotonic() < deadline:
        if len(_lines(worklog)) >= count:
            return True
        if proc.poll() is not None:
            return len(_lines(worklog)) >= count
        time.sleep(0.002)
    pytest.fail(f"the worklog never reached {count} lines")


def test_kill_9_at_many_points_leaves_no_temp_file_and_an_explained_state(
    git_project: Project,
) -> None:
    steps = {
        "specs/a.spec.md": [{"signal": "DONE"}],
        "specs/b.spec.md": [{"write": {"b.txt": f"{i}\n"}, "signal": "DONE"} for i in range(500)],
    }
    git_project.write({"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n", "b.txt": "-\n"})
    git_project.commit_all()
    agent = git_project.script(steps)
    worklog = git_project.store / "worklog.jsonl"
    rng = random.Random(20261128)
    left: set[Path] = set()
    kills = 0
    for _ in range(KILLS):
        before = len(_lines(worklog))
        proc = subprocess.Popen(
            [sys.executable, "-m", "ralph", "run", "--agent-command", agent, "-n", "6"],
            cwd=git_project.root,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            # the next start has swept what the last kill left, before its first record
            if _wait_lines(worklog, before + 1, proc):
                survived = {p for p in left if p.exists()}
                assert not survived, f"temporary files survived the next start: {survived}"
            if _wait_lines(worklog, before + rng.randint(1, 14), proc):
                proc.send_signal(signal.SIGKILL)
                kills += 1
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.wait(WAIT)
        left = _temps(git_project)
        records = [json.loads(line) for line in _lines(worklog) if line.endswith("}")]
        state = json.loads((git_project.store / "state.json").read_text())
        assert _explained(records, state) == [], (kills, records[-3:], state)
    assert kills >= KILLS // 2  # most runs were killed, not left to end by themselves
    # a last run to its end: nothing of ralph's temporary files anywhere
    res = git_project.run_subprocess("run", "--agent-command", agent, "-n", "1", timeout=WAIT)
    assert res.exit_code in (0, 3, 5), res
    assert _temps(git_project) == set()


def test_the_check_sees_a_state_the_worklog_does_not_explain() -> None:
    """The control: the rule above fails on the state the fault suite found."""
    records = [{"event": "rotation_end", "iteration": 4, "spec": "a", "done_count": 2}]
    state: dict[str, Any] = {"last_rotation": 4, "specs": [{"path": "a", "done_count": 3}]}
    assert _explained(records, state) == ["a at 3/3 where its last recorded rotation allows 2/3"]
    state["specs"][0]["done_count"] = 2
    assert _explained(records, state) == []
