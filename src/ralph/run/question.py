"""The QUESTION round trip: the agent asks in `.ralph/question.md`, the user answers in
`.ralph/answer.md`, and the next `ralph run` hands both to the agent.

A question is pending while `question.md` exists. A run refuses to start an agent while a
question is pending and unanswered (it would only ask again); once `answer.md` holds an answer,
the next rotation's prompt carries the question and the answer, and after that rotation is
recorded both files move to `.ralph/archive/questions/<time>/`, so nothing the user wrote is
lost and the same answer is not delivered twice.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

from ralph.rules.text.words import plural
from ralph.run.context import Shared
from ralph.run.events import Notice
from ralph.run.facts import QuestionAsked
from ralph.store.disk.files import read_text, write_text_new
from ralph.store.disk.workspace import Workspace
from ralph.store.records.archive import move_files, unique_dir

MAX_SHOWN_LINES = 30  # of a question, in the run's final message


@dataclass(frozen=True)
class QuestionAndAnswer:
    question: str
    answer: str


def write_fallback_question(ws: Workspace, spec: str, output_tail: str) -> bool:
    """The agent signalled QUESTION without writing question.md: keep its last words there so
    the question is not lost. True when ralph wrote the file."""
    if read_text(ws.question).strip():
        return False
    tail = "\n".join(output_tail.strip().splitlines()[-20:])
    write_text_new(
        ws.question,
        f"# Question from the agent working on {spec}\n\n"
        "(the agent signalled QUESTION without writing this file; its last output was:)\n\n"
        f"```\n{tail}\n```\n",
    )
    return True


def ask(run: Shared, spec: str, log: Path) -> Notice:
    """The agent on `spec` asked a question (rules/counts/stops.py): it is kept (from its output
    log, `log`, when it wrote none) and shown; the notice that showed it, for a scheduler that
    shows it once more as the run ends."""
    if write_fallback_question(run.ws, spec, read_text(log)):
        run.emit(Notice("warning", "the agent did not write .ralph/question.md; saved its output"))
    run.emit(QuestionAsked(spec))
    question = shown(pending(run.ws) or "")
    notice = Notice("warning", f"question from the agent on {spec}:\n{question}")
    run.emit(notice)
    return notice


def shown(text: str) -> str:
    """A question as the run's last message shows it: bounded, never empty."""
    lines = text.strip().splitlines() or ["(empty)"]
    if len(lines) > MAX_SHOWN_LINES:
        lines = [
            *lines[:MAX_SHOWN_LINES],
            f"… ({plural(len(lines) - MAX_SHOWN_LINES, 'more line')})",
        ]
    return "\n".join(lines)


def pending(ws: Workspace) -> str | None:
    """The question waiting for the user's answer, or None."""
    text = read_text(ws.question)
    return text if text.strip() else None


def answered(ws: Workspace) -> QuestionAndAnswer | None:
    """The pending question with the user's answer, once answer.md has one."""
    question = pending(ws)
    answer = read_text(ws.answer)
    if question is None or not answer.strip():
        return None
    return QuestionAndAnswer(question.strip(), answer.strip())


def archive_answered(ws: Workspace, now: float | None = None) -> Path:
    """Move question.md and answer.md to archive/questions/<time>/ once delivered."""
    name = time.strftime("%Y%m%d-%H%M%S", time.localtime(now))
    target = unique_dir(ws.archive / "questions", name)
    move_files(ws.root, (ws.question, ws.answer), target)
    return target
