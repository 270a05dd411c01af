"""Index flags that hide a file from `git status` (skip-worktree, assume-unchanged): a person's
flags keep working, any other is looked through. And the index's blobs, for a check that does not
trust the stat data of an index someone else rewrote (store/snapshots/snapshotter.py).

A flag is a person's when it was there when ralph first looked, or appeared while ralph was not
running; what ralph saw is kept in its private store's `index-flags.json` across runs (not in
`.ralph/`, where an agent could forge it), so a flag an agent set
in one run is not taken for a person's at the next. The index is read again only when its file
changed: git rewrites it (a new file, renamed into place) whenever an entry or flag changes.
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from ralph.errors import StateError
from ralph.store.disk.files import load_json, write_json_atomic
from ralph.store.repository import git

FLAGS_FILE = "index-flags.json"

# `ls-files -v -s -z` records: tag, mode, blob, stage, tab, path. "S" is skip-worktree, a lower
# case tag assume-unchanged; mode 160000 a submodule.
_ENTRY = re.compile(rb"([^\0]) ([0-7]+) ([0-9a-f]+) ([0-3])\t([^\0]*)")
_FLAGGED = frozenset(b"Sabcdefghijklmnopqrstuvwxyz")

IndexStat = tuple[int, int, int, int]


class IndexFlags:
    """The flagged entries of one repository's index, split into a person's and the others."""

    def __init__(self, repo: git.Repo, state_file: Path | None) -> None:
        self._repo = repo
        self._file = state_file
        self._stat: IndexStat | None = None
        self._flagged: dict[str, str] = {}  # path -> index blob, every flagged entry
        self.blobs: dict[str, str] = {}  # path -> index blob, every file entry
        self.gitlinks: tuple[str, ...] = ()  # submodules in the index
        self.rewritten = False  # someone else rewrote the index since the last look
        self._rescan()
        now = set(self._flagged)
        saved = self._load()
        if saved is None:
            self.person = frozenset(now)
        else:
            person, seen = saved
            self.person = frozenset((person & now) | (now - seen))
        self._saved: set[str] | None = None
        self._save()

    def hidden(self) -> dict[str, str]:
        """Entries flagged by someone else than the person: path -> the blob in the index."""
        if self._index_stat() != self._stat:
            self._rescan()
            self._save()
            self.rewritten = True
        return {p: blob for p, blob in self._flagged.items() if p not in self.person}

    def after_status(self) -> None:
        """`git status` may rewrite the index (a refresh) without touching a flag."""
        self._stat = self._index_stat()

    def _rescan(self) -> None:
        self._stat = self._index_stat()
        out = git.index_entries(self._repo)
        flagged: dict[str, str] = {}
        blobs: dict[str, str] = {}
        gitlinks: list[str] = []
        for tag, mode, blob, stage, raw in _ENTRY.findall(out):
            path = os.fsdecode(raw)
            if mode == b"160000":
                gitlinks.append(path)
                continue
            if stage == b"0":
                blobs[path] = blob.decode("ascii")
            if tag[0] in _FLAGGED:
                flagged[path] = blob.decode("ascii")
        self._flagged, self.blobs, self.gitlinks = flagged, blobs, tuple(gitlinks)

    def _index_stat(self) -> IndexStat | None:
        index = self._repo.index
        if index is None:
            return None
        try:
            st = index.stat()
        except OSError:
            return None
        return (st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)

    def _load(self) -> tuple[set[str], set[str]] | None:
        if self._file is None or not self._file.exists():
            return None
        try:
            data = load_json(self._file, f"ralph's record of index flags ({self._file})")
        except StateError:
            return None  # unreadable: nothing is known to be a person's but what is flagged now
        if not isinstance(data, dict):
            return None
        person, seen = data.get("person"), data.get("seen")
        if not isinstance(person, list) or not isinstance(seen, list):
            return None
        return {p for p in person if isinstance(p, str)}, {p for p in seen if isinstance(p, str)}

    def _save(self) -> None:
        seen = set(self._flagged)
        if self._file is None or seen == self._saved or not self._file.parent.is_dir():
            return
        if not seen and not self._file.exists():
            self._saved = seen  # nothing flagged, nothing to remember
            return
        data = {"person": sorted(self.person), "seen": sorted(seen)}
        write_json_atomic(self._file, data)
        self._saved = seen
