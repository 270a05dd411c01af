"""ralph's own git runs nothing the agent wrote and reaches no repository but the project's:
each attack played by a real hostile agent (tests/fakes/git_attacker.py) through the real CLI,
with and without bubblewrap. The planted program would write a sentinel file outside the
project: it must never appear."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Project, Result
from tests.e2e.test_lanes import branches
from tests.e2e.test_sandbox_run import need

ATTACKER = Path(__file__).parents[1] / "fakes" / "git_attacker.py"
SANDBOXES = ["none", "bwrap"]


def play(project: Project, attack: str, sandbox: str, *args: str, target: str = "") -> Result:
    box = ("--sandbox", sandbox) if sandbox != "none" else ()
    sentinel = project.root.parent / "sentinel"
    command = f"{sys.executable} {ATTACKER} {attack} {sentinel} {target}".strip()
    return project.run_subprocess(
        "run", *box, "--agent-command", command, "-n", "3", "--headless", *args, timeout=120
    )


def refused_once(result: Result, *words: str) -> None:
    """The run stopped with one `error:` line saying one of `words`, and no traceback."""
    assert result.exit_code == 1, result
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and any(w in errors[0] for w in words), result
    assert "Traceback" not in result.stderr + result.stdout


@pytest.fixture
def disk_tmp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A folder on disk, outside /tmp and /dev (which bwrap replaces): see test_sandbox_run."""
    base = "/var/tmp" if Path("/var/tmp").is_dir() else None
    path = Path(tempfile.mkdtemp(prefix="ralph-test-", dir=base))
    monkeypatch.setenv("HOME", str(path / "home"))
    (path / "home").mkdir()
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def box_project(disk_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    project = Project(disk_tmp / "proj", monkeypatch)
    project.root.mkdir()
    project.git("init", "-q")
    project.write({"specs/a.spec.md": "# A\n\nDo it.\n"})
    return project


@pytest.fixture
def armed(box_project: Project, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project with tracked files; the sentinel the planted programs would write."""
    box_project.git("checkout", "-q", "-b", "main")
    box_project.write({"a.txt": "a\n", "b.txt": "b\n", ".gitignore": ".ralph/\n"})
    box_project.commit_all()
    return disk_tmp / "sentinel"  # where play() tells the agent to plant it


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_redirected_commondir_is_refused_and_its_hooks_never_run(
    sandbox: str, box_project: Project, armed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sandbox != "none":
        need(sandbox, monkeypatch)
    result = play(box_project, "commondir", sandbox)
    refused_once(result, "the git repository changed under ralph")
    assert "commondir" in result.stderr
    assert not armed.exists()


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_redirected_commondir_in_a_lane_is_refused_and_its_hooks_never_run(
    sandbox: str, box_project: Project, armed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sandbox != "none":
        need(sandbox, monkeypatch)
    box_project.write({"specs/b.spec.md": "# B\n\nDo it too.\n"})
    box_project.commit_all("two specs")
    result = play(box_project, "commondir", sandbox, "--parallel", "2")
    refused_once(result, "the git repository changed under ralph")
    assert not armed.exists()


@pytest.mark.parametrize("lanes", [False, True])
def test_hooks_and_an_fsmonitor_the_agent_writes_never_run(
    lanes: bool, box_project: Project, armed: Path
) -> None:
    box_project.write({"specs/b.spec.md": "# B\n\nDo it too.\n"})
    box_project.commit_all("two specs")
    result = play(box_project, "hooks", "none", *(("--parallel", "2") if lanes else ()))
    assert result.exit_code == 3, result
    assert not armed.exists()


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_filters_textconv_and_merge_drivers_the_agent_names_never_run(
    sandbox: str, box_project: Project, armed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sandbox != "none":
        need(sandbox, monkeypatch)
    result = play(box_project, "filter", sandbox)
    assert result.exit_code == 3, result  # the run goes on: nothing redirected, nothing run
    assert not armed.exists()
    # and ralph still saw the agent's changes, cleaned or not
    assert "a.txt" in (box_project.root / ".ralph" / "worklog.jsonl").read_text()


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_filters_never_run_in_lanes_commits_and_merges_either(
    sandbox: str, box_project: Project, armed: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if sandbox != "none":
        need(sandbox, monkeypatch)
    box_project.write({"specs/b.spec.md": "# B\n\nDo it too.\n"})
    box_project.commit_all("two specs")
    result = play(box_project, "filter", sandbox, "--parallel", "2")
    if sandbox == "none" and result.exit_code == 1:
        # Without a sandbox the agent of one lane may write a driver while ralph's git runs
        # for another: the driver may have run (the agent could run it itself), but ralph
        # notices and stops in one line; it never goes on as if nothing happened.
        refused_once(result, "gained a program")
        return
    assert result.exit_code == 3, result
    assert not armed.exists(), armed.read_text()


def other_repository(where: Path) -> tuple[Path, str]:
    """A repository outside the project with uncommitted work; its HEAD."""
    other = where / "other"
    other.mkdir()
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@t"]
    subprocess.run([*git, "init", "-q"], cwd=other, check=True)
    (other / "x.txt").write_text("x\n")
    subprocess.run([*git, "add", "-A"], cwd=other, check=True)
    subprocess.run([*git, "commit", "-qm", "theirs"], cwd=other, check=True)
    (other / "x.txt").write_text("work in progress\n")
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=other, capture_output=True, text=True, check=True
    )
    return other, head.stdout.strip()


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_lane_worktree_swapped_for_a_link_to_another_repository_is_refused(
    sandbox: str,
    box_project: Project,
    armed: Path,
    disk_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if sandbox != "none":
        need(sandbox, monkeypatch)
    other, head = other_repository(disk_tmp)
    box_project.write({"specs/b.spec.md": "# B\n\nDo it too.\n"})
    box_project.commit_all("two specs")
    result = play(box_project, "link", sandbox, "--parallel", "2", target=str(other))
    refused_once(result, "worktree is no longer ralph's", "changed under ralph", "is a link")
    # nothing committed there, its work in progress untouched
    now = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=other, capture_output=True, text=True, check=True
    )
    assert now.stdout.strip() == head
    assert (other / "x.txt").read_text() == "work in progress\n"
    assert branches(box_project) == sorted(branches(box_project))  # the project's refs readable


@pytest.mark.parametrize("sandbox", SANDBOXES)
def test_a_lane_worktree_swapped_for_a_link_to_a_plain_folder_is_refused_in_one_line(
    sandbox: str,
    box_project: Project,
    armed: Path,
    disk_tmp: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    if sandbox != "none":
        need(sandbox, monkeypatch)
    plain = disk_tmp / "plain"
    plain.mkdir()
    (plain / "keep.txt").write_text("keep\n")
    box_project.write({"specs/b.spec.md": "# B\n\nDo it too.\n"})
    box_project.commit_all("two specs")
    result = play(box_project, "nogit", sandbox, "--parallel", "2", target=str(plain))
    refused_once(result, "worktree is no longer ralph's", "changed under ralph", "is a link")
    assert sorted(p.name for p in plain.iterdir()) == ["keep.txt"]
