"""The private store: where ralph keeps what it believes about a project, out of the agent's reach.

`.ralph/` is inside the project, where the agent works: anything there may be deleted, forged or
replaced by a link between two looks. What ralph judges with (test baselines, the ignore rules
and index flags a person set, the settings a person accepted, the options `--continue` reuses,
the last snapshot, the run lock, and its own copy of state.json) lives here instead: under the
user's state folder, one folder per repository, named after the project folder and a hash of
its resolved path. A repository that moves (renamed, cloned elsewhere) gets a new, empty store:
its first run there records the tests, ignore rules and settings afresh from the tree, never from
what `.ralph/` holds (see `drop_legacy`).

The folders are created 0700; every sandbox profile hides `state_home() / "ralph"` whole.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import re
import sys
from pathlib import Path

from ralph.store.disk.files import folders_below, sweep_temps, write_text_atomic

STATE_DIR = ".ralph"
STATE_FILE = "state.json"
# Files and folders an earlier ralph kept in `.ralph/`. Never read: whatever `.ralph/` holds the
# agent could have written (a forged run-options.json would name the command `--continue` runs),
# so a run removes them and records afresh, as a first run does.
LEGACY = (
    "tests",
    "ignore-rules.json",
    "index-flags.json",
    "run-options.json",
    "snapshot.json",
    "reports.json",
)
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def state_home() -> Path:
    """The user's state folder: %LOCALAPPDATA% on Windows, else $XDG_STATE_HOME or
    ~/.local/state (macOS included: a CLI's state is not an app's Library data)."""
    if sys.platform == "win32":
        local = os.environ.get("LOCALAPPDATA")
        return Path(local) if local else Path.home() / "AppData" / "Local"
    xdg = os.environ.get("XDG_STATE_HOME")
    # the XDG spec: a relative path is invalid and must be ignored
    return Path(xdg) if xdg and Path(xdg).is_absolute() else Path.home() / ".local" / "state"


def stores_root() -> Path:
    """The folder holding every project's store: what a sandbox hides."""
    return state_home() / "ralph"


def store_dir(root: Path) -> Path:
    """The store of the project at `root` (not created here)."""
    resolved = root.resolve()
    name = _UNSAFE.sub("_", resolved.name)[:40] or "root"
    key = hashlib.sha256(os.fsencode(resolved)).hexdigest()[:16]
    return stores_root() / "projects" / f"{name}-{key}"


def ensure_store(root: Path) -> Path:
    """The project's store, created (0700, like every folder above it that ralph creates)."""
    store = store_dir(root)
    for folder in (stores_root(), store.parent, store):
        with contextlib.suppress(FileExistsError):
            folder.mkdir(mode=0o700, parents=True)
        with contextlib.suppress(OSError):  # a folder ralph created, made private again
            folder.chmod(0o700)
    return store


def project_of(state_file: Path) -> Path | None:
    """The project root of `.ralph/state.json`; None for a state file kept elsewhere."""
    return state_file.parent.parent if state_file.parent.name == STATE_DIR else None


def drop_legacy(root: Path) -> str | None:
    """Remove what an earlier ralph kept in `.ralph/`, unread: a file there could be the person's
    history or the agent's forgery, and nothing tells the two apart, so ralph records afresh
    from the tree (as a first run does). Returns the line saying so, if any. Call it holding
    the lock: it also clears what a run killed mid-write left in the store."""
    store = ensure_store(root)
    # half-written by a run killed mid-write; the real files are intact: the store and its
    # folders (baselines and their blobs, archived runs' records...), not the clean rooms'
    # copies of the project nor the rotation logs
    sweep_temps(folders_below(store, depth=3, skip=frozenset({"rooms", "history"})))
    legacy_dir = root / STATE_DIR
    if legacy_dir.is_symlink() or not legacy_dir.is_dir():
        return None
    dropped: list[str] = []
    for name in LEGACY:
        old = legacy_dir / name
        if old.exists() or old.is_symlink():
            _remove(old)
            dropped.append(f"{STATE_DIR}/{name}")
    _adopt_worklog(legacy_dir / "worklog.jsonl", store / "worklog.jsonl")
    lock = legacy_dir / "run.lock"
    with contextlib.suppress(OSError):
        lock.unlink(missing_ok=True)  # only after this run holds the store's lock
    # state.json is not copied: until ralph first saves the state (store/state.save_state),
    # `.ralph/state.json` is read as it is, and a damaged one is refused, as ever
    if not dropped:
        return None
    return (
        f"removed {', '.join(dropped)} unread: files an earlier ralph kept in {STATE_DIR}/, "
        "where the agent can write; the test baseline, ignore rules and saved options are "
        "recorded afresh in ralph's private store"
    )


def _adopt_worklog(old: Path, new: Path) -> None:
    """An earlier ralph's worklog becomes the record's start, once, quietly (the copy in
    `.ralph/` stays: ralph keeps writing it for people; and every store that lost its record
    would find one there, so it says nothing of an upgrade). Read as any file the agent could
    have written: a regular file, its end only, no link."""
    from ralph.errors import RalphError
    from ralph.store.disk import reader

    if new.exists():
        return
    try:
        data = reader.read(old, limit=reader.RECORD_LIMIT, tail=True).data
    except (OSError, RalphError):
        return
    write_text_atomic(new, data.decode("utf-8", errors="replace"))


def lost_store(root: Path) -> str | None:
    """The line saying the store is gone while `.ralph/` shows earlier runs (the store was
    deleted, or the project moved): what ralph believed is taken anew from the tree as it is,
    which a person should know before trusting the verdict. None when nothing was lost."""
    if (store_dir(root) / STATE_FILE).exists() or (root / STATE_DIR).is_symlink():
        return None
    from ralph.errors import RalphError
    from ralph.store.disk import reader

    try:  # the agent's copy, read only for this hint: bounded, never through a link or a pipe
        text = reader.read_text(root / STATE_DIR / STATE_FILE, limit=reader.RECORD_LIMIT)
    except (OSError, RalphError):
        return None
    if not re.search(r'"last_rotation":\s*[1-9]', text):
        return None  # a project that never ran a rotation has nothing to lose
    return (
        f"ralph's private store for this project is missing ({store_dir(root)}), yet "
        f"{STATE_DIR}/ shows earlier runs: it was deleted or the project moved, so the test "
        "baseline, the ignore rules and the accepted settings are taken anew from the tree as "
        "it is now; check the tests and ralph.yaml before trusting this run's verdict"
    )


def restore_state(root: Path) -> str | None:
    """Make `.ralph/state.json` ralph's own copy again when it is missing, changed or a link;
    the line saying so, None when it was intact (or the store has no copy yet)."""
    own = store_dir(root) / STATE_FILE
    try:
        text = own.read_text(encoding="utf-8")
    except OSError:
        return None
    if (root / STATE_DIR).is_symlink():
        return None  # never written through: refusing such a `.ralph` is the workspace's call
    shown = root / STATE_DIR / STATE_FILE
    if shown.is_symlink():
        what = "was replaced by a link"
    elif not shown.exists():
        what = "was missing"
    else:
        from ralph.errors import RalphError
        from ralph.store.disk import reader

        try:  # compared, never believed; a pipe or a device there is replaced, not read
            if reader.read_bytes(shown, limit=len(text.encode()) + 1) == text.encode():
                return None
        except (OSError, RalphError):
            pass
        what = "did not match ralph's own record"
    _remove(shown)
    shown.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(shown, text)
    return f"{STATE_DIR}/{STATE_FILE} {what}: restored from ralph's private store"


def _remove(path: Path) -> None:
    import shutil

    if path.is_dir() and not path.is_symlink():
        shutil.rmtree(path, ignore_errors=True)
    else:
        with contextlib.suppress(OSError):
            path.unlink(missing_ok=True)
