"""store/live/lanenotes.py: the run's notes lent to a lane for one rotation."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ralph.store.disk.workspace import Workspace
from ralph.store.live.lanenotes import LaneNotes


def lane(tmp_path: Path) -> tuple[Workspace, LaneNotes, Path]:
    (tmp_path / "proj").mkdir()
    ws = Workspace(tmp_path / "proj")
    ws.ensure()
    worktree = ws.dir / "worktrees" / "a-000000"
    worktree.mkdir(parents=True)
    return ws, LaneNotes(ws, worktree, lambda t: t.replace("KEY", "[redacted]")), worktree


def test_the_notes_are_lent_where_the_prompt_names_them_and_taken_back(tmp_path: Path) -> None:
    ws, notes, worktree = lane(tmp_path)
    ws.handoff("a").write_text("step 1 done\n")
    loan = notes.lend("a")
    copy = worktree / ".ralph" / "handoffs" / "a.md"
    assert copy.read_text() == "step 1 done\n"
    assert (worktree / ".ralph" / "guardrails.md").read_text() == ws.guardrails.read_text()
    assert (worktree / ".ralph" / ".gitignore").read_text().endswith("*\n")
    copy.write_text("step 2 done KEY\n")
    (worktree / ".ralph" / "question.md").write_text("may I?\n")
    assert notes.take_back(loan) == []
    assert ws.handoff("a").read_text() == "step 2 done [redacted]\n"
    assert ws.question.read_text() == "may I?\n"


@pytest.mark.skipif(sys.platform == "win32", reason="named pipes and links as on POSIX")
@pytest.mark.parametrize("what", ["link", "pipe"])
def test_a_link_or_a_pipe_left_in_the_lane_is_not_taken(tmp_path: Path, what: str) -> None:
    ws, notes, worktree = lane(tmp_path)
    ws.handoff("a").write_text("step 1 done\n")
    secret = tmp_path / "credentials"
    secret.write_text("aws_secret=1\n")
    loan = notes.lend("a")
    copy = worktree / ".ralph" / "handoffs" / "a.md"
    copy.unlink()
    if what == "link":
        copy.symlink_to(secret)
    else:
        os.mkfifo(copy)
    problems = notes.take_back(loan)  # a pipe is refused at once: no reader waits on it
    assert len(problems) == 1 and problems[0].startswith(".ralph/handoffs/a.md not taken")
    assert ws.handoff("a").read_text() == "step 1 done\n"  # the run's copy as it was
    notes.lend("a")  # the next rotation's copy replaces it; the link's target is untouched
    assert copy.is_file() and not copy.is_symlink()
    assert secret.read_text() == "aws_secret=1\n"


def test_a_question_another_lane_asked_meanwhile_is_kept(tmp_path: Path) -> None:
    ws, notes, worktree = lane(tmp_path)
    ws.question.write_text("# a: may I?\n")  # asked by another lane before this one began
    loan = notes.lend("b")
    copy = worktree / ".ralph" / "question.md"
    assert copy.read_text() == ""  # not this agent's to rewrite
    copy.write_text("# b: may I?\n")  # the agent writes its question, as in its own tree
    assert loan.take_back() == []
    assert ws.question.read_text() == "# a: may I?\n# b: may I?\n"


def test_what_an_agent_wrote_before_ralph_was_killed_is_taken_at_the_next_lend(
    tmp_path: Path,
) -> None:
    ws, notes, worktree = lane(tmp_path)
    ws.handoff("a").write_text("step 1 done\n")
    notes.lend("a")  # ralph is killed during this rotation: nothing is taken back
    (worktree / ".ralph" / "handoffs" / "a.md").write_text("step 2 done\n")
    with (worktree / ".ralph" / "guardrails.md").open("a") as f:
        f.write("- a lesson\n")
    notes.lend("a")  # the next run's first rotation in the lane
    assert ws.handoff("a").read_text() == "step 2 done\n"
    assert ws.guardrails.read_text().endswith("- a lesson\n")
    # the control: copies taken back are gone, so an honest next lend changes nothing
    loan = notes.lend("a")
    assert loan.take_back() == []
    assert ws.handoff("a").read_text() == "step 2 done\n"
    assert not (worktree / ".ralph" / "handoffs" / "a.md").exists()
