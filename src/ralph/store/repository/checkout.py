"""Which checkout of a repository ralph's private store belongs to.

The store is found by the project's path (store/disk/private.py). A person who deletes a project
and clones it again at the same path would inherit the old checkout's store: its iteration,
its test baseline, its sealed tests. So the store records the checkout it was made for: a
random id ralph writes once into the repository's git folder (`.git/ralph-id`). A fresh clone
has a new git folder without it, so a store recording another id is an earlier checkout's:
the run starts afresh (the old records moved aside, never deleted) and says why.

The id is no secret and proves nothing about the files: it only tells checkouts apart. An agent
that deletes it (it cannot under a sandbox: the git folder is out of its reach) only makes the
next run start its records afresh, which it says, as when the store itself is deleted.
"""

from __future__ import annotations

import secrets
import time
from pathlib import Path

from ralph.errors import RalphError
from ralph.store.disk import reader
from ralph.store.disk.files import write_text_atomic
from ralph.store.disk.private import store_dir, stores_root

ID_FILE = "ralph-id"  # in the repository's common git folder
RECORD = "checkout"  # in the store: the id of the checkout it belongs to
KEPT = ("run.lock",)  # what stays in place when the records move aside (the held lock)
MAX_LINE = 4096  # a `.git` file, `commondir` or an id: one short line


def git_folder(root: Path) -> Path | None:
    """The repository's common git folder above `root` (a worktree's `.git` file followed to
    it), read without running git; None outside a repository."""
    for folder in (root, *root.parents):
        dot = folder / ".git"
        if dot.is_dir():
            return dot
        if dot.is_file():
            line = _read(dot, MAX_LINE)
            if line is None:
                return None
            if not line.startswith("gitdir:"):
                return None
            gitdir = (folder / line[len("gitdir:") :].strip()).resolve()
            common = _read(gitdir / "commondir", MAX_LINE)  # a worktree's names the common one
            if common is None:
                return gitdir
            return (gitdir / common).resolve()
    return None


def _read(path: Path, limit: int = 64) -> str | None:
    """The stripped line in `path`, or None. Through the one reader: a lane's `.git` file and
    the git folder are the agent's to write without a sandbox (a pipe there must not hang)."""
    try:
        text = reader.read_text(path, limit=limit, root=path.parent, truncate=True, missing=None)
    except (OSError, RalphError):
        return None
    return text.strip() or None


def foreign(root: Path) -> bool:
    """The store records a checkout other than the one at `root` now (read only)."""
    recorded = _read(store_dir(root) / RECORD)
    folder = git_folder(root)
    if recorded is None or folder is None:
        return False  # no record yet, or no repository to tell checkouts apart by
    return _read(folder / ID_FILE) != recorded


def claim(root: Path) -> str | None:
    """At a run's start, holding the lock: the store is this checkout's from now on. A store
    of an earlier checkout has its records moved aside first; the line saying so, or None."""
    folder = git_folder(root)
    if folder is None:
        return None
    store = store_dir(root)
    said = None
    if foreign(root):
        aside = stores_root() / "replaced" / f"{store.name}-{time.strftime('%Y%m%d-%H%M%S')}"
        aside.mkdir(mode=0o700, parents=True, exist_ok=True)
        for entry in store.iterdir():
            if entry.name not in KEPT:
                entry.rename(aside / entry.name)
        said = (
            "ralph's private store for this path belonged to another checkout of the project "
            "(deleted and cloned again here?): this run starts its records afresh (iteration, "
            f"test baseline, sealed tests); the old ones were moved to {aside}"
        )
    own = _read(folder / ID_FILE)
    if own is None:
        own = secrets.token_hex(16)
        write_text_atomic(folder / ID_FILE, own + "\n")
    if _read(store / RECORD) != own:
        write_text_atomic(store / RECORD, own + "\n")
    return said
