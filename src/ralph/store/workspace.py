"""The folder `.ralph/`: where each of ralph's files lives, and creating what a run needs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ralph.errors import StateError
from ralph.store.files import read_text
from ralph.store.private import store_dir

STATE_DIR = ".ralph"

GUARDRAILS_TEMPLATE = """\
# Guardrails

Project-wide lessons every agent reads at the start of every rotation, on every spec.
Add what the next agent must know: commands that work, traps to avoid, decisions made.
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
    def store(self) -> Path:
        """ralph's private store for this project (store/private.py): what it judges with."""
        return store_dir(self.root)

    @property
    def snapshot_file(self) -> Path:
        return self.store / "snapshot.json"

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

    def last_logged_rotation(self) -> int:
        """The highest rotation number with a history log: where numbering goes on when the
        state file was lost (numbers never repeat while the logs exist)."""
        numbers = (p.name.partition(".")[0] for p in self.history.glob("*/[0-9][0-9][0-9]*.log"))
        return max((int(n) for n in numbers if n.isdigit()), default=0)

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
