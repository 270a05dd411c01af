"""The run's notes lent to a lane for one rotation: the spec's handoff, the guardrails and the
question file are copied into the lane's worktree (`<worktree>/.ralph/`), at the paths the
prompt names, so an agent working there reads and writes them as it would in the project's
own tree; once the agent has ended, what it left joins the run's copies (rules/text/notes.py),
redacted as every file the agent writes, before the DONE checks and the next prompt read them.

The lane's `.ralph/` is the agent's: it is written afresh before each rotation (a link or a
pipe put there is removed, never followed), read back through the one reader (no link, no
pipe, a bounded size), and git never commits it (`.ralph/.gitignore`, and ralph's commits
leave `.ralph/` out: store/worktrees.commit_all).
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import RalphError
from ralph.rules.text.notes import merged_note
from ralph.store.disk import confined, reader
from ralph.store.disk.files import read_text, remove_file, write_text_atomic
from ralph.store.disk.workspace import STATE_DIR, Workspace

# One lane at a time folds its notes into the run's copies (the guardrails are shared).
_LOCK = threading.Lock()


@dataclass(frozen=True)
class Loan:
    """The notes one rotation was lent: each run's file, its copy in the lane, what it held."""

    notes: LaneNotes
    files: tuple[tuple[Path, Path, str], ...]

    def take_back(self) -> list[str]:
        return self.notes.take_back(self)


@dataclass(frozen=True)
class LaneNotes:
    ws: Workspace  # the run's `.ralph/`
    worktree: Path  # the lane's worktree, inside the project
    redact: Callable[[str], str]

    def lend(self, slug: str) -> Loan:
        """Copy the run's notes of the spec `slug` into the lane, replacing what was there."""
        ws, lane = self.ws, self.worktree / STATE_DIR
        root = ws.root
        for folder in (lane, lane / "handoffs"):
            if folder.is_symlink() or (folder.exists() and not folder.is_dir()):
                confined.remove(root, folder)  # the agent's, in ralph's own lane: not followed
            confined.makedirs(root, folder)
        self._put(lane / ".gitignore", "# ralph's notes for the agent are not committed\n*\n")
        owns = (ws.handoff(slug), ws.guardrails, ws.question)
        # Copies still there were never taken back (ralph was killed during that rotation):
        # what that agent wrote joins the run's copies first, as if it had been lent them now.
        left = [(own, copy, read_text(own)) for own in owns if (copy := self._copy(own)).exists()]
        self.take_back(Loan(self, tuple(left)))
        files = []
        for own in owns:
            # The question file starts empty in a lane: another lane's question is not this
            # agent's to rewrite, and an answered one reaches it in its prompt.
            text = read_text(own) if own != ws.question else ""
            self._put(self._copy(own), text)
            files.append((own, self._copy(own), text))
        return Loan(self, tuple(files))

    def _copy(self, own: Path) -> Path:
        return self.worktree / STATE_DIR / own.relative_to(self.ws.dir)

    def take_back(self, loan: Loan) -> list[str]:
        """What the lane's agent left joins the run's copies; a line for each it could not
        read (a link, a pipe, too large), whose run's copy stays as it was."""
        problems: list[str] = []
        with _LOCK:
            for own, copy, given in loan.files:
                try:
                    left = reader.read_text(
                        copy, limit=reader.TEXT_LIMIT, root=self.worktree, truncate=True
                    )
                except RalphError as exc:
                    problems.append(f"{self.ws.rel(own)} not taken from the lane: {exc.message}")
                    continue
                remove_file(copy)  # taken back: a copy left in the lane is a killed run's
                now = read_text(own)
                text = self.redact(merged_note(given, now, left))
                if text == now:
                    continue
                if text.strip() or own.name != "question.md":
                    write_text_atomic(own, text)
                else:  # no question any more: as when the agent deletes it in the project
                    remove_file(own)
        return problems

    def _put(self, path: Path, text: str) -> None:
        if path.is_dir() and not path.is_symlink():
            confined.remove_tree(self.ws.root, path)
        elif path.is_symlink() or (path.exists() and not path.is_file()):
            confined.remove(self.ws.root, path)  # a link or a pipe: removed, never followed
        write_text_atomic(path, text)
