"""Lanes that can be discarded: `ralph reset --lanes` (asked on a terminal, `--yes` in a
script, `--all` too), and a plain run that finds open lanes says so in one line."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ralph.store.live.lanes import lanes_file
from tests.conftest import Project
from tests.e2e.test_lanes import branches, lanes_project, worktrees

SPECS = {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"}


def open_lanes(project: Project) -> None:
    """A --parallel run stopped by its rotation cap: both lanes open, their work unmerged."""
    lanes_project(project, {**SPECS, "mine.txt": "the user's\n"})
    steps = {p: [{"write": {f"{Path(p).name[0]}.txt": "x\n"}, "signal": "CONTINUE"}] for p in SPECS}
    res = project.run(
        "run", *project.fake(steps), "--parallel", "2", "--headless", "--max-iterations", "2"
    )
    assert res.exit_code == 3, res
    assert branches(project) == [
        "main",
        "ralph/a-" + lane_hash(project, "a"),
        "ralph/b-" + lane_hash(project, "b"),
    ]
    assert len(worktrees(project)) == 3


def lane_hash(project: Project, name: str) -> str:
    folder = project.root / ".ralph" / "worktrees"
    return next(p.name for p in folder.iterdir() if p.name.startswith(f"{name}-"))[2:]


def assert_discarded(project: Project) -> None:
    assert branches(project) == ["main"]
    assert len(worktrees(project)) == 1
    assert not lanes_file(project.root).exists()
    assert not any((project.root / ".ralph" / "worktrees").iterdir())
    assert (project.root / "mine.txt").read_text() == "the user's\n"  # the user's work stays
    assert project.git("status", "--porcelain") == ""
    assert set(project.counts().values()) == {0}


def test_reset_lanes_yes_discards_every_open_lane(project: Project) -> None:
    open_lanes(project)
    res = project.run("reset", "--lanes", "--yes")
    assert res.exit_code == 0, res
    assert res.stdout.count("lane discarded: specs/") == 2, res.stdout
    assert_discarded(project)
    again = project.run("reset", "--lanes")  # nothing left: nothing to ask
    assert again.exit_code == 0, again
    assert "no open lanes to discard" in again.stdout


def test_reset_lanes_without_a_terminal_or_yes_changes_nothing(project: Project) -> None:
    open_lanes(project)
    before = project.state()
    res = project.run("reset", "--all")  # --all includes the lanes: asked like --lanes
    assert res.exit_code == 5, res
    assert "no terminal to confirm on: nothing reset; `ralph reset --lanes --yes`" in res.stdout
    assert project.state() == before
    assert len(worktrees(project)) == 3 and len(branches(project)) == 3


def test_a_lane_folder_without_its_record_is_discarded_too(project: Project) -> None:
    open_lanes(project)
    lanes_file(project.root).unlink()  # lost (ralph's private store deleted)
    res = project.run("reset", "--lanes", "--yes")
    assert res.exit_code == 0, res
    assert "lane discarded: (its record was lost): worktree .ralph/worktrees/a-" in res.stdout
    assert_discarded(project)


@pytest.mark.slow
@pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")
@pytest.mark.parametrize(("typed", "code"), [("y", 0), ("n", 5)])
def test_on_a_terminal_reset_all_asks_before_discarding_lanes(
    project: Project, typed: str, code: int
) -> None:
    from tests.terminal import on_terminal, read_until

    open_lanes(project)
    proc, master = on_terminal(["reset", "--all"], project.root)
    seen = bytearray()
    try:
        read_until(master, b"Discard 2 open lanes (worktrees and branches)? [y/N] ", seen)
        assert b"specs/a.spec.md: worktree .ralph/worktrees/a-" in seen  # the paths it removes
        assert b", branch ralph/a-" in seen
        os.write(master, typed.encode() + b"\n")
        assert proc.wait(timeout=60) == code
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    if code == 0:
        assert_discarded(project)
    else:
        assert len(worktrees(project)) == 3 and len(branches(project)) == 3


def test_a_plain_run_says_in_one_line_that_open_lanes_are_not_used(project: Project) -> None:
    open_lanes(project)
    res = project.run("run", *project.fake({"*": [{"signal": "DONE"}]}), "--headless", "-n", "1")
    lines = [line for line in res.stdout.splitlines() if "--parallel run" in line]
    assert lines == [
        lines[0].split("2 lanes")[0]
        + "2 lanes of an earlier --parallel run are open and not used by this run: resume with "
        "`ralph run --parallel 2`, or discard with `ralph reset --lanes`"
    ], res.stdout
    quiet = project.run("reset", "--lanes", "--yes")
    assert quiet.exit_code == 0
    res = project.run("run", *project.fake({"*": [{"signal": "DONE"}]}), "--headless", "-n", "1")
    assert "--parallel run" not in res.stdout  # no lanes: no word about them
