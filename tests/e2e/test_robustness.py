"""What an overnight run meets: specs made unreadable, lost snapshots, resets, hang-ups."""

from __future__ import annotations

import contextlib
import hashlib
import json
import signal
import subprocess
import sys
import time

import psutil
import pytest

from tests.conftest import Project
from tests.platforms import posix_signals


def seed(project: Project, rows: list[dict[str, object]], iteration: int = 0) -> None:
    """A state.json as an earlier run left it, each spec's hash matching the file on disk."""
    for row in rows:
        data = (project.root / str(row["path"])).read_bytes()
        row.setdefault("last_hash", hashlib.sha256(data).hexdigest())
        row.setdefault("last_status", "DONE")
    state = {"schema_version": 1, "iteration": iteration, "specs": rows}
    project.write({".ralph/state.json": json.dumps(state)})


def test_a_rotation_is_recorded_even_when_the_agent_breaks_its_spec(git_project: Project) -> None:
    spec = "specs/a.spec.md"
    git_project.write({spec: "# a\n"})
    seed(git_project, [{"path": spec, "done_count": 2}])
    agent = (
        f'{sys.executable} -c "import pathlib,sys; sys.stdin.read(); '
        f"pathlib.Path('{spec}').write_bytes(b'\\\\xff broken'); "
        "pathlib.Path('code.py').write_text('x'); print('<ralph>DONE</ralph>')\""
    )
    res = git_project.run("run", "--agent-command", agent)
    assert res.exit_code == 1, res
    assert f"{spec}: spec is not valid UTF-8" in res.stderr
    row = git_project.state()["specs"][0]
    # the DONE with changes was recorded before the re-scan refused the spec: 1/3, not 2/3
    assert (row["done_count"], row["last_status"], row["modified_files"]) == (1, "DONE", True)
    assert git_project.state()["iteration"] == 1


def test_a_lost_snapshot_counts_as_a_change(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.fake({"*": [{"signal": "DONE"}]})
    assert git_project.run("run", *cmd).exit_code == 0
    (git_project.store / "snapshot.json").unlink()
    git_project.write({"code.py": "broken\n"})
    res = git_project.run("run", *cmd)
    assert res.exit_code == 0, res
    assert "the last run's snapshot is missing or unreadable" in res.stdout
    assert len(git_project.calls()) == 4  # reviewed again, not waved through


def test_history_survives_a_reset(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    first = git_project.fake({"*": [{"say": "first run", "signal": "CONTINUE"}]})
    assert git_project.run("run", *first, "-n", "1").exit_code == 3
    assert git_project.run("reset").exit_code == 0
    second = git_project.fake({"*": [{"say": "second run", "signal": "CONTINUE"}]})
    assert git_project.run("run", *second, "-n", "1").exit_code == 3
    logs = sorted((git_project.root / ".ralph/history").rglob("*.log"))
    assert [p.name for p in logs] == ["001.log", "002.log"]  # numbers go on after a reset
    assert "first run" in logs[0].read_text()
    assert "second run" in logs[1].read_text()


def test_run_without_specs_creates_nothing_and_init_still_works(project: Project) -> None:
    res = project.run("run", "--agent", "demo")
    assert res.exit_code == 1
    assert "no specs found" in res.stderr
    assert not (project.root / ".ralph").exists()
    (project.root / ".ralph").mkdir()  # a .ralph/ without state: nothing to clobber
    assert project.run("init").exit_code == 0
    assert (project.root / ".ralph/state.json").exists()


@posix_signals
@pytest.mark.slow
def test_hangup_stops_the_run_and_its_agent(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.script({"*": [{"write": {"w.txt": "1"}, "sleep": 60, "signal": "DONE"}]})
    proc = subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", "--agent-command", cmd],
        cwd=git_project.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 15
        while not (git_project.root / "w.txt").exists():
            assert time.monotonic() < deadline, "the agent never started"
            time.sleep(0.02)
        agent = json.loads((git_project.root / ".ralph/run.json").read_text())["agent_pid"]
        proc.send_signal(signal.SIGHUP)  # the ssh session dropped
        _, err = proc.communicate(timeout=20)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    with contextlib.suppress(psutil.NoSuchProcess):  # gone is what we want; a zombie is dead
        assert psutil.Process(agent).status() == psutil.STATUS_ZOMBIE
    row = git_project.state()["specs"][0]
    assert (row["last_status"], row["modified_files"]) == ("ERROR", True)


def test_a_display_that_cannot_write_does_not_stop_the_run(git_project: Project) -> None:
    from pathlib import Path

    from ralph.agents.member import Member
    from ralph.agents.registry import make_agent
    from ralph.run.events import Event
    from ralph.run.start import run_loop
    from tests.run.test_options import run_options

    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.script({"*": [{"signal": "DONE"}]})
    shown: list[Event] = []

    def closed_terminal(event: Event) -> None:
        shown.append(event)
        raise OSError(5, "Input/output error")  # what writing to a hung-up tty raises

    agent = make_agent(None, cmd, {})
    code = run_loop(
        run_options(Path(git_project.root), (Member(agent),), max_iterations=5),
        closed_terminal,
    )
    assert code == 0
    assert len(shown) == 1  # dropped after the first failure
    assert git_project.counts() == {"PROMPT.md": 3}


# A snapshot that fails after the agent ran (here: the agent broke git's index) is one step shared
# by a rotation and the final verification: the outcome is recorded as a change, the state saved,
# the log says why, the error raised, and the last snapshot kept for the next run to compare.
BROKEN_INDEX = {".git/index": "not an index\n"}


def test_a_failed_snapshot_in_a_rotation_counts_as_a_change(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.script({"*": [{"signal": "DONE"}, {"write": BROKEN_INDEX, "signal": "DONE"}]})
    res = git_project.run("run", "--agent-command", cmd)
    assert res.exit_code == 1, res
    assert "git status" in res.stderr
    state = git_project.state()
    row = state["specs"][0]
    # a clean REVIEW would have made it 2/3; an unknown tree is never taken as clean
    assert (row["done_count"], row["last_status"], row["modified_files"]) == (1, "DONE", True)
    assert state["iteration"] == 2
    assert len(git_project.rotation_ends()) == 1  # the second one never got that far
    logs = sorted((git_project.root / ".ralph/history").rglob("*.log"))
    assert "# ralph could not take a snapshot" in logs[-1].read_text()


def test_a_failed_snapshot_fails_the_final_verification(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.script(
        {"*": [{"signal": "DONE"}], "VERIFY": [{"write": BROKEN_INDEX, "signal": "VERIFY_PASS"}]}
    )
    res = git_project.run("run", "--agent-command", cmd)
    assert res.exit_code == 1, res
    snapshot = (git_project.store / "snapshot.json").read_text()
    state = git_project.state()
    assert state["iteration"] == 4
    final = state["final_verification"]
    assert (final["passed"], final["failures"]) == (False, 1)
    assert "snapshot failed" in final["last_failure"]
    # every verified spec needs another review, and the snapshot of rotation 3 is kept
    assert [s["done_count"] for s in state["specs"]] == [2]
    assert (git_project.store / "snapshot.json").read_text() == snapshot
    logs = sorted((git_project.root / ".ralph/history").rglob("*.log"))
    assert "# ralph could not take a snapshot" in logs[-1].read_text()
