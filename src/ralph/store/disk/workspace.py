"""The folder `.ralph/`: where each of ralph's files lives, and creating what a run needs."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ralph.errors import StateError, UnsafePath
from ralph.store.disk import confined, reader
from ralph.store.disk.files import (
    folders_below,
    make_dirs,
    refuse_link,
    sweep_temps,
    write_text_new,
)
from ralph.store.disk.private import store_dir

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
        """ralph's private store for this project (store/disk/private.py): what it judges with."""
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
        """The worklog ralph reads (history, inspect, status, report): in its store."""
        return self.store / "worklog.jsonl"

    @property
    def worklog_copy(self) -> Path:
        """`.ralph/worklog.jsonl`: the copy for people and scripts, never read back."""
        return self.dir / "worklog.jsonl"

    @property
    def records(self) -> Path:
        """The rotation logs ralph quotes (history, report): in its store, `<slug>/NNN.log`
        as in `.ralph/history/`, which holds the copies for people and agents."""
        return self.store / "history"

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

    @property
    def archived(self) -> Path:
        """ralph's records of the archived runs (`<id>/worklog.jsonl`, `<id>/state.json`):
        in its store, beside the copies in `.ralph/archive/<id>/`."""
        return self.store / "archive"

    def record_of(self, log: str) -> Path | None:
        """The store's record of a history log named as the worklog names it
        (`.ralph/history/<slug>/NNN.log`); None for any other path."""
        prefix = f"{STATE_DIR}/history/"
        rest = log.replace("\\", "/")
        if not rest.startswith(prefix):
            return None
        parts = rest[len(prefix) :].split("/")
        if len(parts) != 2 or any(p in ("", ".", "..") for p in parts):
            return None
        return self.records / parts[0] / parts[1]

    def last_logged_rotation(self) -> int:
        """The highest rotation number with a history log: where numbering goes on when the
        state file was lost (numbers never repeat while the logs exist)."""
        numbers = (p.name.partition(".")[0] for p in self.records.glob("*/[0-9]*.log"))
        return max((int(n) for n in numbers if n.isdigit()), default=0)

    def rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix()

    def check(self) -> None:
        """StateError when `.ralph` exists but is not a folder; UnsafePath when it is a link
        (ralph would write wherever it leads)."""
        if self.dir.is_symlink():
            raise UnsafePath(
                f"{STATE_DIR} in {self.root} is a link (to {self.dir.readlink()}): ralph "
                "keeps its files in the project, never where a link leads",
                f"remove the link ({STATE_DIR}) and run again; ralph makes a folder of its own",
            )
        if self.dir.exists() and not self.dir.is_dir():
            raise StateError(
                f"{STATE_DIR} in {self.root} is a file, not a folder",
                f"move the file away; ralph keeps its state in the folder {STATE_DIR}/",
            )

    def ensure(self) -> None:
        """Create what a run needs; never overwrite what is there. Call it holding the lock."""
        self.check()
        make_dirs(self.handoffs)
        make_dirs(self.history)
        # half-written by a run killed with SIGKILL mid-write; the real file is intact
        sweep_temps(self.atomic_folders())
        # git ignores .ralph/ even in a project whose .gitignore does not mention it, so
        # an agent's `git add -A` never commits ralph's state
        self._create(self.dir / ".gitignore", "# ralph's state is not committed\n*\n")
        self._create(self.guardrails, GUARDRAILS_TEMPLATE)

    def atomic_folders(self) -> list[Path]:
        """The folders of `.ralph/` ralph writes files atomically in (their leftovers swept):
        `.ralph/` and its folders three levels down (handoffs, each lane's, each archived
        run's), but not the lanes' git worktrees nor the history logs (appended, never saved
        atomically)."""
        return folders_below(self.dir, depth=3, skip=frozenset({"worktrees", "history"}))

    def _create(self, path: Path, text: str) -> None:
        """Write `path` unless something (a file, or a link: refused) is there already."""
        refuse_link(path)
        if not path.exists():
            write_text_new(path, text)


def ensure_gitignored(root: Path) -> bool:
    """Add `.ralph/` to the project's .gitignore; True when the file was changed."""
    gitignore = root / ".gitignore"
    try:
        text = reader.read_text(gitignore, limit=reader.TEXT_LIMIT, root=root, missing=None)
    except FileNotFoundError:
        text = ""
    entries = {line.strip() for line in text.splitlines()}
    if entries & {".ralph", ".ralph/", "/.ralph", "/.ralph/"}:
        return False
    prefix = "" if not text or text.endswith("\n") else "\n"
    add = f"{prefix}# ralph's state (see ralph status)\n.ralph/\n"
    confined.write_bytes(root, gitignore, add.encode("utf-8"), append=True)
    return True
