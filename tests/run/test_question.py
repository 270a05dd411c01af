"""run/question.py: the QUESTION round trip kept in files a person can read and answer: the
agent's question (or, when it wrote none, its last words), the answer once there is one, and
both archived together once delivered so nothing is lost or delivered twice."""

from __future__ import annotations

from pathlib import Path

from ralph.run.question import (
    MAX_SHOWN_LINES,
    QuestionAndAnswer,
    answered,
    archive_answered,
    pending,
    shown,
    write_fallback_question,
)
from ralph.store.disk.workspace import Workspace


def workspace(root: Path) -> Workspace:
    ws = Workspace(root)
    ws.ensure()
    return ws


def test_an_agent_that_wrote_no_question_has_its_last_words_kept(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    output = "\n".join(f"line {n}" for n in range(30)) + "\nWhich database?\n"
    assert write_fallback_question(ws, "specs/a.spec.md", output)
    question = pending(ws)
    assert question is not None and "specs/a.spec.md" in question
    assert "Which database?" in question and "line 10" not in question  # the last 20 lines
    # the control: a question the agent wrote is its own, never replaced
    ws.question.write_text("Postgres or SQLite?\n")
    assert not write_fallback_question(ws, "specs/a.spec.md", output)
    assert pending(ws) == "Postgres or SQLite?\n"


def test_a_question_is_answered_only_once_answer_md_says_something(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    assert pending(ws) is None and answered(ws) is None
    ws.question.write_text("Postgres or SQLite?\n")
    ws.answer.write_text("  \n")
    assert answered(ws) is None  # blank is no answer
    ws.answer.write_text("SQLite.\n")
    assert answered(ws) == QuestionAndAnswer("Postgres or SQLite?", "SQLite.")


def test_a_delivered_answer_is_archived_with_its_question(tmp_path: Path) -> None:
    ws = workspace(tmp_path)
    ws.question.write_text("Postgres or SQLite?\n")
    ws.answer.write_text("SQLite.\n")
    first = archive_answered(ws, now=1_800_000_000.0)
    assert (first / "question.md").read_text() == "Postgres or SQLite?\n"
    assert (first / "answer.md").read_text() == "SQLite.\n"
    assert pending(ws) is None and answered(ws) is None  # not delivered twice
    ws.question.write_text("Again?\n")
    ws.answer.write_text("Yes.\n")
    second = archive_answered(ws, now=1_800_000_000.0)  # the same second: its own folder
    assert second != first and (second / "answer.md").read_text() == "Yes.\n"


def test_a_long_question_is_shown_bounded_and_an_empty_one_still_shows() -> None:
    long = "\n".join(f"line {n}" for n in range(MAX_SHOWN_LINES + 5))
    lines = shown(long).splitlines()
    assert len(lines) == MAX_SHOWN_LINES + 1 and lines[-1] == "… (5 more lines)"
    assert shown("  \n") == "(empty)"
