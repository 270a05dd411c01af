"""The files under `.ralph/`: where each one lives, creating them, and the per-rotation logs."""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from ralph.errors import StateError

STATE_DIR = ".ralph"
CURRENT_LOG_CAP = 50 << 20  # current.log is a live view; the history log keeps everything

GUARDRAILS_TEMPLATE = """\
# Guardrails

Project-wide lessons every agent reads at the start of every rotation, on every spec.
Add what the next agent must know: commands that work, traps to avoid, decisions made.
"""

PROMPT_TEMPLATE = """\
# Project goal

Describe what you want built, in a few sentences.

## Acceptance criteria

- [ ] The first thing that must be true when this is done
- [ ] The second thing

## Notes

Constraints, commands to run the tests, links. Add more specs as `specs/<name>.spec.md`.
"""


@dataclass(frozen=True)
class Workspace:
    root: Path

    @property
    def dir(self) -> Path:
        return self.root / STATE_DIR

    @property
    def state_file(self) -> Path:
        return self.dir / "state.json"

    @property
    def snapshot_file(self) -> Path:
        return self.dir / "snapshot.json"

    @property
    def guardrails(self) -> Path:
        return self.dir / "guardrails.md"

    @property
    def current_log(self) -> Path:
        return self.dir / "current.log"

    @property
    def prompt_file(self) -> Path:
        return self.dir / "prompt.md"

    @property
    def worklog(self) -> Path:
        return self.dir / "worklog.jsonl"

    @property
    def handoffs(self) -> Path:
        return self.dir / "handoffs"

    @property
    def history(self) -> Path:
        return self.dir / "history"

    @property
    def progress(self) -> Path:
        return self.dir / "progress.md"

    @property
    def errors_log(self) -> Path:
        return self.dir / "errors.log"

    @property
    def question(self) -> Path:
        return self.dir / "question.md"

    @property
    def answer(self) -> Path:
        return self.dir / "answer.md"

    @property
    def archive(self) -> Path:
        return self.dir / "archive"

    def handoff(self, slug: str) -> Path:
        return self.handoffs / f"{slug}.md"

    def history_log(self, slug: str, iteration: int) -> Path:
        return self.history / slug / f"{iteration:03d}.log"

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def check(self) -> None:
        """StateError when `.ralph` exists but is not a folder."""
        if self.dir.exists() and not self.dir.is_dir():
            raise StateError(
                f"{STATE_DIR} in {self.root} is a file, not a folder",
                f"move the file away; ralph keeps its state in the folder {STATE_DIR}/",
            )

    def ensure(self) -> None:
        """Create what a run needs; never overwrite what is there. Call it holding the lock."""
        self.check()
        self.handoffs.mkdir(parents=True, exist_ok=True)
        self.history.mkdir(parents=True, exist_ok=True)
        for stale in self.dir.glob(".*.tmp"):
            # half-written by a run killed with SIGKILL mid-write; the real file is intact
            stale.unlink(missing_ok=True)
        own_ignore = self.dir / ".gitignore"
        if not own_ignore.exists():
            # git ignores .ralph/ even in a project whose .gitignore does not mention it, so
            # an agent's `git add -A` never commits ralph's state
            own_ignore.write_text("# ralph's state is not committed\n*\n", encoding="utf-8")
        if not self.guardrails.exists():
            self.guardrails.write_text(GUARDRAILS_TEMPLATE, encoding="utf-8")


def read_text(path: Path) -> str:
    """A memory file's text; empty when it does not exist yet; undecodable bytes replaced."""
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""


def append_note(path: Path, note: str) -> None:
    """Add a note from ralph to a handoff, so the next rotation knows what happened."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as f:
        f.write(f"\n\n> **Note from ralph:** {note}\n")


def ensure_gitignored(root: Path) -> bool:
    """Add `.ralph/` to the project's .gitignore; True when the file was changed."""
    gitignore = root / ".gitignore"
    text = read_text(gitignore)
    entries = {line.strip() for line in text.splitlines()}
    if entries & {".ralph", ".ralph/", "/.ralph", "/.ralph/"}:
        return False
    prefix = "" if not text or text.endswith("\n") else "\n"
    with gitignore.open("a", encoding="utf-8") as f:
        f.write(f"{prefix}# ralph's state (see ralph status)\n.ralph/\n")
    return True


def _open_new(path: Path) -> tuple[Path, BinaryIO]:
    """Create `path`, or `NNN-2.log`, `NNN-3.log`...: numbers restart after `ralph reset`,
    and an earlier run's log is never overwritten."""
    candidate = path
    n = 1
    while True:
        try:
            return candidate, candidate.open("xb")
        except FileExistsError:
            n += 1
            candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")


class RotationLog:
    """One rotation's output: raw in its history log, readable (the adapter's rendering, one line
    per assistant message or tool call) in current.log, capped."""

    def __init__(self, history_path: Path, current_path: Path, header: str) -> None:
        history_path.parent.mkdir(parents=True, exist_ok=True)
        self.path, self._history = _open_new(history_path)
        self._current: BinaryIO = current_path.open("wb")  # one rotation at a time
        self._current_written = 0
        data = header.encode() + b"\n"
        self._history.write(data)
        self._write_current(data)
        self._current.flush()  # a follower sees the new rotation's header at once

    def _write_current(self, data: bytes) -> None:
        if self._current_written < CURRENT_LOG_CAP:
            room = CURRENT_LOG_CAP - self._current_written
            self._current.write(data[:room])
            self._current_written += min(len(data), room)
            if self._current_written >= CURRENT_LOG_CAP:
                self._current.write(b"\n[current.log capped; the history log has the rest]\n")

    def chunk(self, stream: str, data: bytes) -> None:
        """Raw output, exactly as the agent printed it: the history log."""
        self._history.write(data)

    def lines(self, stream: str, lines: tuple[str, ...]) -> None:
        """The readable rendering: current.log."""
        if not lines:
            return
        self._write_current(("\n".join(lines) + "\n").encode("utf-8", "replace"))
        # current.log is read live (`ralph inspect --follow`): each batch reaches it at once.
        self._current.flush()

    def close(self, footer: str) -> None:
        data = b"\n" + footer.encode() + b"\n"
        self._history.write(data)
        self._write_current(data)
        for f in (self._history, self._current):
            f.flush()
            f.close()


def stamp(now: float | None = None) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S%z", time.localtime(now))


def append_worklog(path: Path, event: str, **fields: object) -> None:
    """One JSON object per line, append-only: what happened, when."""
    import json

    record = {"ts": round(time.time(), 3), "event": event, **fields}
    with path.open("a", encoding="utf-8") as f:
        f.write(json.dumps(record, default=str) + "\n")
