"""ralph's git never enters a repository inside the project (issue 36): an agent makes one whose
own config names a clean filter (tests/fakes/nester.py), registered as a submodule or not, and
changes a file in it every rotation. Through the real CLI, with and without bubblewrap: the
filter never runs (it would write a sentinel outside the project), each change still counts
(no DONE counts twice in a row), nothing is verified. The control: a person's submodule from
before the run, and an honest agent, are verified."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Project, Result
from tests.e2e.test_sandbox_run import box_project, disk_tmp, need

__all__ = ["box_project", "disk_tmp"]  # the fixtures, shared

NESTER = Path(__file__).parents[1] / "fakes" / "nester.py"
SANDBOXES = ["none", "bwrap"]


def play(p: Project, kind: str, sandbox: str, sentinel: Path, *args: str) -> Result:
    box = ("--sandbox", sandbox) if sandbox != "none" else ()
    command = f"{sys.executable} {NESTER} {kind} {sentinel}"
    return p.run_subprocess(
        "run", *box, "--agent-command", command, "--headless", *args, timeout=180
    )


def start(p: Project, sandbox: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if sandbox != "none":
        need(sandbox, monkeypatch)
    p.git("checkout", "-q", "-b", "main")
    p.write({".gitignore": ".ralph/\n"})  # and box_project's one spec


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize("kind", ["submodule", "nested"])
def test_a_filter_in_a_repository_the_agent_nests_never_runs_and_its_edits_count(
    kind: str, sandbox: str, box_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    p = box_project
    start(p, sandbox, monkeypatch)
    p.commit_all()
    sentinel = p.root.parent / "sentinel"
    res = play(p, kind, sandbox, sentinel, "-n", "4")
    assert res.exit_code in (3, 5), res  # the iteration limit, or the breaker: not verified
    assert "every spec verified" not in res.stdout
    assert all(s["done_count"] < 3 for s in p.state()["specs"]), res
    assert all(e["files_changed"] >= 1 for e in p.rotation_ends()), p.rotation_ends()
    assert not sentinel.exists()
    # the control: git let into that repository runs its filter
    subprocess.run(["git", "status"], cwd=p.root / "vendor/lib", capture_output=True, check=False)
    assert sentinel.exists()


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_persons_submodule_keeps_working_and_honest_work_is_verified(
    sandbox: str,
    box_project: Project,
    disk_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    p = box_project
    start(p, sandbox, monkeypatch)
    origin = disk_tmp / "lib-origin"
    origin.mkdir()
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-qm", "lib"]):
        (origin / "lib.py").write_text("VALUE = 1\n")
        subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args], cwd=origin, check=True
        )
    p.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(origin), "lib")
    p.commit_all()
    (p.root / "lib" / "lib.py").write_text("VALUE = 2\n")  # the person's work in progress
    res = play(p, "honest", sandbox, p.root.parent / "sentinel", "-n", "6")
    assert res.exit_code == 0, res
    assert "every spec verified" in res.stdout
    assert [e["files_changed"] for e in p.rotation_ends()] == [0, 0, 0]
    assert (p.root / "lib" / "lib.py").read_text() == "VALUE = 2\n"
