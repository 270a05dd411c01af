"""ralph's private store (store/disk/private.py): what ralph judges with is out of the agent's
reach.

Each attack of issue 18 on ralph's records is played by a real agent program
(tests/fakes/intruder.py, tests/fakes/hider.py) through the real CLI: deleting the test
baseline or the whole `.ralph/`, forging state.json, the ignore rules or the index flags,
deleting the run lock. The verdict never moves (exit code, state.json, `status --json`), and
under `--sandbox bwrap` the agent can neither read nor write the store at all.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from ralph.store.disk.private import store_dir
from tests.conftest import Project
from tests.e2e.test_hidden_changes import assert_not_verified
from tests.e2e.test_hidden_changes import run as run_hider
from tests.e2e.test_hidden_changes import start as start_hider
from tests.e2e.test_sandbox_run import disk_tmp, need  # noqa: F401  (a fixture)
from tests.e2e.test_testguard import calc_project

INTRUDER = Path(__file__).parents[1] / "fakes" / "intruder.py"
JUDGED = ("tests", "ignore-rules.json", "index-flags.json", "run-options.json", "snapshot.json")

pytestmark = pytest.mark.slow


def intruder(*actions: str, at: int = 1) -> tuple[str, str]:
    """The intruding agent, playing `actions` in rotation `at` (numbers go on across runs)."""
    return ("--agent-command", " ".join([sys.executable, str(INTRUDER), str(at), *actions]))


def status(p: Project) -> dict[str, object]:
    res = p.run("status", "--json")
    assert res.exit_code == 0, res
    data: dict[str, object] = json.loads(res.stdout)
    return data


def assert_never_verified(p: Project, code: int) -> None:
    """Every view says: not verified (the exit code, the store's state, `status --json`)."""
    assert code != 0
    data = status(p)
    assert data["complete"] is False
    specs = data["specs"]
    assert isinstance(specs, list)
    assert all(s["done_count"] < 3 for s in specs)


def test_the_store_is_outside_the_project_private_and_keyed_by_the_repository(
    git_project: Project,
) -> None:
    p = git_project
    calc_project(p)
    res = p.run("run", *intruder(), "-n", "1")
    assert res.exit_code == 3, res
    store = store_dir(p.root)
    home = Path(os.environ["XDG_STATE_HOME"])
    assert store.parent == home / "ralph" / "projects"
    assert store.name.startswith("proj-")
    for folder in (home / "ralph", store.parent, store):
        assert stat.S_IMODE(folder.stat().st_mode) == 0o700, folder
    assert {"tests", "snapshot.json", "run-options.json", "state.json", "run.lock"} <= {
        f.name for f in store.iterdir()
    }
    assert not any((p.root / ".ralph" / name).exists() for name in (*JUDGED, "run.lock"))
    # what people and scripts read stays where the contract says, and says the same
    shown = json.loads((p.root / ".ralph" / "state.json").read_text())
    assert shown == json.loads((store / "state.json").read_text())


@pytest.mark.parametrize("target", [".ralph/tests/baseline.json", ".ralph/tests", ".ralph"])
def test_deleting_ralphs_test_records_switches_no_guard_off(
    git_project: Project, target: str
) -> None:
    p = git_project
    calc_project(p)
    assert p.run("run", *intruder(), "-n", "1").exit_code == 3  # the baseline is recorded
    # a process of its own: a `.ralph/` deleted under a live run may leave its files open
    first = p.run_subprocess("run", *intruder("weaken", f"rm={target}", at=2), "-n", "3")
    assert_never_verified(p, first.exit_code)
    # the next run starts from what is left in .ralph/: the guard still holds
    again = p.run("run", *intruder(), "-n", "4")
    assert_never_verified(p, again.exit_code)
    assert "test_calc.py" in again.stdout, again  # the refusal names the weakened test


def test_a_forged_state_file_moves_no_verdict_and_is_restored_in_one_line(
    git_project: Project,
) -> None:
    p = git_project
    calc_project(p)
    res = p.run("run", *intruder("forge-state"), "-n", "2")
    assert_never_verified(p, res.exit_code)
    forged = json.loads((p.root / ".ralph" / "state.json").read_text())
    if forged["iteration"] == 9:  # still the agent's file: nothing ralph wrote since
        assert forged["specs"][0]["done_count"] == 3
    again = p.run("run", *intruder(), "-n", "1")
    assert_never_verified(p, again.exit_code)
    row = {"path": "specs/calc.spec.md", "done_count": 3, "last_status": "DONE"}
    forged = {"schema_version": 1, "iteration": 9, "specs": [row]}
    (p.root / ".ralph" / "state.json").write_text(json.dumps(forged))
    assert_never_verified(p, 3)  # status reads ralph's own copy
    res = p.run("run", *intruder(), "-n", "1")
    said = "restored from ralph's private store"
    lines = [line for line in res.stdout.splitlines() if said in line]
    assert len(lines) == 1, res
    assert ".ralph/state.json did not match ralph's own record" in lines[0]
    assert json.loads((p.root / ".ralph" / "state.json").read_text())["iteration"] != 9


def test_a_state_file_replaced_by_a_link_is_restored_and_nothing_is_written_through_it(
    git_project: Project, tmp_path: Path
) -> None:
    p = git_project
    calc_project(p)
    assert p.run("run", *intruder(), "-n", "1").exit_code == 3
    outside = tmp_path / "outside.json"
    outside.write_text("{}")
    shown = p.root / ".ralph" / "state.json"
    shown.unlink()
    shown.symlink_to(outside)
    res = p.run("run", *intruder(), "-n", "1")
    assert ".ralph/state.json was replaced by a link: restored" in res.stdout, res
    assert outside.read_text() == "{}"
    assert not shown.is_symlink()


@pytest.mark.parametrize("trick", ["forge-rules", "forge-flags"])
def test_forged_ignore_rules_or_index_flags_in_ralph_dir_do_nothing(
    git_project: Project, trick: str
) -> None:
    p = git_project
    start_hider(p)
    assert_not_verified(p, run_hider(p, trick, "-n", "3"))
    assert not (p.root / ".ralph" / "ignore-rules.json").exists() or trick == "forge-rules"
    # the next run: a record in .ralph/ is not read (and is removed), the agent's edits count
    res = run_hider(p, trick, "-n", "4")
    assert_not_verified(p, res)
    assert all(e["files_changed"] >= 1 for e in p.rotation_ends())
    assert not (p.root / ".ralph" / "ignore-rules.json").exists()
    assert not (p.root / ".ralph" / "index-flags.json").exists()


def test_deleting_the_run_lock_lets_no_second_run_start(git_project: Project) -> None:
    p = git_project
    p.write({"PROMPT.md": "# task\n"})
    agent = p.root.parent / "slow.py"
    agent.write_text(
        "import pathlib, sys, time\nsys.stdin.read()\n"
        "for f in ('.ralph/run.lock',):\n    pathlib.Path(f).unlink(missing_ok=True)\n"
        "pathlib.Path('../started').write_text('x')\ntime.sleep(30)\n"
        "print('<ralph>CONTINUE</ralph>')\n"
    )
    first = subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", "--agent-command", f"{sys.executable} {agent}"],
        cwd=p.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not (p.root.parent / "started").exists():
            assert time.monotonic() < deadline and first.poll() is None
            time.sleep(0.1)
        (p.root / ".ralph" / "run.lock").unlink(missing_ok=True)
        store_lock = store_dir(p.root) / "run.lock"
        store_lock.unlink()  # without a sandbox the agent can reach the store: still refused
        second = p.run("run", "--agent-command", "echo '<ralph>DONE</ralph>'")
        assert second.exit_code == 1, second
        assert "another ralph run is live" in second.stderr
        assert status(p)["running"] is True
        assert first.poll() is None  # the live run's agent was not killed as a "leftover"
    finally:
        first.terminate()
        first.wait(timeout=30)


def test_files_of_an_earlier_ralph_in_ralph_dir_are_removed_unread(git_project: Project) -> None:
    # A baseline of a weakened test and saved options naming a command, as an agent could plant
    # them before the store was lost (the project moved): ralph cannot tell them from an earlier
    # ralph's history, so it reads neither and records afresh from the tree.
    p = git_project
    calc_project(p)
    legacy = p.root / ".ralph"
    (legacy / "tests" / "blobs").mkdir(parents=True)
    weak = "def test_nothing():\n    pass\n"
    sha = __import__("hashlib").sha256(weak.encode()).hexdigest()
    (legacy / "tests" / "blobs" / sha).write_text(weak)
    files = {"tests/test_calc.py": sha}
    (legacy / "tests" / "baseline.json").write_text(json.dumps({"format": 1, "files": files}))
    planted = {"agent_command": [f"touch {p.root / 'planted'}"]}
    (legacy / "run-options.json").write_text(json.dumps({"schema_version": 1, "options": planted}))
    (legacy / "state.json").write_text(json.dumps({"schema_version": 1, "iteration": 4}))
    cont = p.run("run", "--continue")
    assert cont.exit_code == 2, cont  # nothing to continue: the planted options are not read
    assert "nothing to continue" in cont.stderr
    assert not (p.root / "planted").exists()
    res = p.run("run", *intruder("weaken"), "-n", "3")
    assert "removed .ralph/tests, .ralph/run-options.json unread" in res.stdout, res
    assert not (legacy / "tests").exists() and not (legacy / "run-options.json").exists()
    baseline = json.loads((store_dir(p.root) / "tests" / "baseline.json").read_text())
    assert baseline["files"]["tests/test_calc.py"] != sha  # the tree's test, not the planted one
    assert_never_verified(p, res.exit_code)  # the baseline taken from the tree bites
    assert not (p.root / "planted").exists()
    assert status(p)["iteration"] == 7  # the counters travel with .ralph/state.json, as documented


@pytest.mark.parametrize("profile", ["bwrap", "srt"])
def test_a_sandboxed_agent_can_neither_read_nor_write_the_store(
    disk_tmp: Path,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
    profile: str,
) -> None:
    need(profile, monkeypatch)
    p = Project(disk_tmp / "proj", monkeypatch)
    p.root.mkdir()
    p.git("init", "-q")
    calc_project(p)
    assert p.run_subprocess("run", *intruder(), "-n", "1", "--headless").exit_code == 3
    store = store_dir(p.root)
    # the first rotation of this run probes the store, then deletes ralph's records
    res = p.run_subprocess(
        "run",
        "--sandbox",
        profile,
        *intruder(f"probe={store}", "rm=.ralph", "weaken", at=2),
        "-n",
        "3",
        "--headless",
    )
    found = json.loads((p.root / "probe.json").read_text())
    # inside, an empty folder stands in for every store (or reading it is refused)
    assert found["listed"] == [] or str(found["listed"]).startswith("error:"), found
    assert str(found["wrote"]).startswith("error:"), found
    assert not (store / "planted").exists()
    assert (store / "tests" / "baseline.json").exists()
    assert_never_verified(p, res.exit_code)
    again = p.run_subprocess("run", "--sandbox", profile, *intruder(), "-n", "3", "--headless")
    assert_never_verified(p, again.exit_code)


def test_reset_and_status_work_from_ralphs_own_copy_when_ralph_dir_is_gone(
    git_project: Project,
) -> None:
    p = git_project
    calc_project(p)
    assert p.run("run", *intruder(), "-n", "2").exit_code == 3
    shutil.rmtree(p.root / ".ralph")
    assert status(p)["iteration"] == 2  # nothing lost
    res = p.run("reset")
    assert res.exit_code == 0, res
    assert ".ralph/state.json was missing: restored from ralph's private store" in res.stdout
    assert "counters and iteration reset" in res.stdout
    assert status(p)["iteration"] == 0


def test_a_store_deleted_between_runs_is_said_before_the_run_trusts_anything(
    git_project: Project,
) -> None:
    """Without a sandbox an agent (as the user) can delete the store itself: the next run
    cannot know what was lost, but it says so in one line rather than start afresh silently."""
    import shutil

    p = git_project
    calc_project(p)
    assert p.run("run", *intruder(), "-n", "1").exit_code == 3  # records exist
    shutil.rmtree(store_dir(p.root))
    res = p.run("run", *intruder(), "-n", "1")
    lines = [line for line in res.stdout.splitlines() if "private store" in line]
    assert len(lines) == 1, res
    assert "warning: ralph's private store for this project is missing" in lines[0]
    assert "check the tests and ralph.yaml before trusting this run's verdict" in lines[0]
    # the store exists again: the next run has nothing to say
    again = p.run("run", *intruder(), "-n", "1")
    assert "private store" not in again.stdout, again


def test_a_new_project_has_no_store_to_miss(git_project: Project) -> None:
    p = git_project
    calc_project(p)
    res = p.run("run", *intruder(), "-n", "1")
    assert "private store" not in res.stdout, res
