"""The Snapshotter: takes snapshots of one project (store/snapshots/snapshot.py) and tells what
changed.

git mode lives in store/repository/git.py, the walk without git in store/snapshots/walk.py, the
file fingerprints
and their stat cache in store/snapshots/fingerprint.py, what is left out in
store/snapshots/ignore.py.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Literal

from ralph.errors import StateError
from ralph.store.disk.private import store_dir
from ralph.store.repository import git
from ralph.store.snapshots import ignorebase
from ralph.store.snapshots.fingerprint import DELETED, DIRECTORY, CacheEntry, Fingerprints
from ralph.store.snapshots.ignore import (
    RALPHIGNORE,
    RalphIgnore,
    WalkIgnore,
    is_scaffolding,
    load_ignore,
    stat_key,
)
from ralph.store.snapshots.indexflags import FLAGS_FILE, IndexFlags
from ralph.store.snapshots.snapshot import Changes, Snapshot, diff_entries
from ralph.store.snapshots.walk import walk, walk_folder


class Snapshotter:
    """Takes snapshots of one project: from `git status` in a repository, else by a walk.

    What is compared is what the ignore rules a person set leave in (store/snapshots/ignorebase.py),
    whatever the rules on disk say now; files flagged in git's index to hide them are looked
    through unless a person flagged them (store/snapshots/indexflags.py). A repository inside the
    project (a submodule, or one the agent made) is never entered by git, whose settings
    there are its own and could name a program: ralph walks it (`_nested_fingerprint`).
    """

    # Timestamps can be as coarse as 2 s (FAT) and are jiffy-grained on Linux, so a file written
    # twice within one tick may keep its size and times: files this young are not cached.
    racy_window_ns = 2_000_000_000

    @property
    def lock(self) -> git.GitLock:
        """The lock its git commands hold (the run's, when it was given)."""
        return self._repo.lock

    def __init__(
        self, root: Path, *, refresh: bool = True, lock: git.GitLock | None = None
    ) -> None:
        """`refresh=False` for a second reader of a tree (the clean room's, store/rooms/room.py):
        its `git status` leaves the index as it is (see `git.status`). `lock`: the run's,
        held by its git commands (None: one of its own)."""
        self.root = Path(root)
        self._refresh = refresh
        if not self.root.is_dir():
            raise StateError(
                f"{self.root}: project folder not found",
                "run ralph from an existing project folder",
            )
        now = load_ignore(self.root / RALPHIGNORE, strict=True)  # a bad pattern is said now
        self._repo = git.find_repo(self.root, lock)
        self.kind: Literal["git", "walk"] = "git" if self._repo.usable else "walk"
        self._rules = ignorebase.baseline(self.root, self._repo)
        self._ignored = RalphIgnore(ignorebase.ralphignore_spec(self._rules), now)
        # each nested repository's files the last take walked, relative to it
        self._nested_files: dict[str, list[str]] = {}
        # (depth of its repository, path) -> left out of a walk; the rules are fixed
        self._nested_skips: dict[tuple[int, str], bool] = {}
        self._fingerprints = Fingerprints(self.root, self._repo.algo, self._nested_fingerprint)
        self._walk_ignore: WalkIgnore | None = None
        self._flags: IndexFlags | None = None
        self._person = ignorebase.BaselineMatcher(self._rules)
        self._prefix = os.fsdecode(self._repo.prefix)
        self.rule_hidden: list[str] = []  # what the last take found hidden by rules not accepted
        self.person_ignored: list[str] = []  # files the last take found ignored by a person's rules
        self._rules_key: object = None
        self._suspects: set[str] = set()  # tracked files to compare with the index ourselves
        self._last_take = time.time_ns()
        self._pending: tuple[object, list[str]] = (None, [])
        if self.kind == "walk":
            specs = [ignorebase.gitignore_spec(self._rules), self._ignored.spec]
            self._walk_ignore = WalkIgnore(self.root, specs)
        else:
            self._flags = IndexFlags(self._repo, store_dir(self.root) / FLAGS_FILE)
            self._watched = ignorebase.watched_files(self._repo)

    @property
    def hashed_files(self) -> int:
        """Files hashed by the last take(): the cache at work, for tests."""
        return self._fingerprints.hashed_files

    def take(self) -> Snapshot:
        racy_from = time.time_ns() - self.racy_window_ns
        self._fingerprints.hashed_files = 0
        self._nested_files = {}
        if self._walk_ignore is not None:
            found = walk(self.root, self._walk_ignore, self._fingerprints, racy_from)
            return Snapshot(kind="walk", head=None, entries=found)
        assert self._flags is not None
        flagged = self._flags.hidden()
        status = git.status(self._repo, refresh=self._refresh)
        self._flags.after_status()
        entries: dict[str, str] = {}
        cache: dict[str, CacheEntry] = {}

        def of(rel: str) -> str:
            return self._fingerprints.of(rel, None, racy_from, cache)

        for path in status.changed:
            rel = path.rstrip("/")
            if rel and not self._ignored(rel, path.endswith("/")):
                entries[rel] = of(rel)
        for path in status.untracked:
            rel = path.rstrip("/")
            if rel and not self._skip(path):
                entries[rel] = of(rel)
        hidden: list[str] = []
        person: list[str] = []
        for path in status.ignored:
            if self._skip(path) or is_scaffolding(path):
                if not path.endswith("/") and self._person(self._prefix + path):
                    person.append(path)  # a person's file git lists one by one (`.env`)
                continue
            hidden.append(path)  # ignored by a rule no person accepted: compared all the same
            if path.endswith("/"):
                entries.update(walk_folder(self.root, path, self._skip_inside, of))
            else:
                entries[path] = of(path)
        for rel, blob in flagged.items():
            if rel not in entries and not self._ignored(rel, False):
                fingerprint = of(rel)
                if fingerprint != blob:
                    entries[rel] = fingerprint
        for rel in self._flags.gitlinks:  # git status leaves submodules out: walked here
            if rel not in entries and not self._ignored(rel, True):
                entries[rel] = of(rel)
        if self._flags.rewritten:  # its stat data may lie: look at what changed since
            self._flags.rewritten = False
            self._suspects.update(self._changed_since(self._last_take - self.racy_window_ns))
        for rel in sorted(self._suspects):
            indexed = self._flags.blobs.get(rel)
            fingerprint = entries.get(rel) or of(rel)
            if indexed is None or fingerprint == indexed:
                self._suspects.discard(rel)  # untracked now (git lists it), or as in the index
            elif rel not in entries and not self._ignored(rel, False):
                entries[rel] = fingerprint
        self._last_take = racy_from + self.racy_window_ns
        self._fingerprints.keep(cache)
        self.rule_hidden, self.person_ignored = hidden, person
        self._rules_key = self._key(status, entries)
        return Snapshot(kind="git", head=status.head, entries=entries)

    def room_files(self, snap: Snapshot) -> tuple[list[str], list[str]]:
        """What a clean room of this tree holds (store/rooms/room.py), from `snap` taken just now:
        the files it compares as they are on disk (in git mode the index's files the rules
        leave in, plus the snapshot's entries, minus deleted ones), and apart the nested
        repositories and submodules (compared as one entry each), sorted."""
        nested = {p for p, f in snap.entries.items() if f.startswith(DIRECTORY)}
        files = {p for p, f in snap.entries.items() if f != DELETED}
        if self._flags is not None:
            nested.update(g for g in self._flags.gitlinks if not self._ignored(g, True))
            files.update(p for p in self._flags.blobs if not self._ignored(p, False))
            files.difference_update(p for p, f in snap.entries.items() if f == DELETED)
        return sorted(files - nested), sorted(nested)

    def _changed_since(self, since_ns: int) -> list[str]:
        """Tracked files whose inode changed since `since_ns`: ctime cannot be set back."""
        prefix, found = str(self.root).rstrip(os.sep) + os.sep, []
        for rel in self._flags.blobs if self._flags is not None else ():
            try:
                st = os.lstat(prefix + rel)
            except OSError:
                continue  # gone: git lists a deleted file whatever the index says
            if max(st.st_ctime_ns, st.st_mtime_ns) >= since_ns:
                found.append(rel)
        return found

    def nested_files(self, rel: str) -> list[str]:
        """The files of the repository at `rel` (one of `room_files`' nested ones) as the
        last take walked them, relative to it, sorted."""
        return self._nested_files.get(rel, [])

    def pending_rules(self) -> list[str]:
        """What in the ignore rules waits for a person's say, one line each, as of the last
        take: rules that could hide source files, and files such rules hide."""
        key = self._rules_key
        if key is None or key != self._pending[0]:
            now = ignorebase.current_rules(self.root, self._repo)
            self._pending = (key, ignorebase.rule_changes(self._rules, now))
        lines = list(self._pending[1])
        lines.extend(
            f"{p} is hidden by an ignore rule no person accepted" for p in self.rule_hidden
        )
        return lines

    def _skip(self, path: str) -> bool:
        """An untracked path (folders end in "/") that the person's rules leave out."""
        rel = path.rstrip("/")
        return self._ignored(rel, path.endswith("/")) or self._person(self._prefix + path)

    def _skip_inside(self, path: str) -> bool:
        return self._skip(path) or is_scaffolding(path)

    def _key(self, status: git.Status, entries: Mapping[str, str]) -> object:
        """What the rules on disk depend on, cheaply: HEAD, the rule files that differ from
        it, and the stat of the files outside the tree (info/exclude, git config)."""
        names = (".gitignore", RALPHIGNORE)
        rule_files = sorted((p, f) for p, f in entries.items() if p.rsplit("/", 1)[-1] in names)
        return (status.head, tuple(rule_files), tuple(stat_key(p) for p in self._watched))

    def diff(self, before: Snapshot, after: Snapshot) -> Changes:
        if before.kind != after.kind:
            return Changes((f"(snapshot kind changed: {before.kind} -> {after.kind})",))
        old, new = before.head or "", after.head or ""
        if before.kind == "walk" or old == new:
            return diff_entries(before.entries, after.entries)
        commit_changes = None
        if self.kind == "git":
            commit_changes = git.commit_changes(self._repo, old, new, self._ignored)
        if commit_changes is None:
            # Without the commit diff nothing can be ruled out.
            return Changes((f"(HEAD moved: {old[:7] or 'none'}..{new[:7] or 'none'})",))
        return diff_entries(before.entries, after.entries, commit_changes)

    def _nested_fingerprint(self, rel: str, racy_from: int, cache: dict[str, CacheEntry]) -> str:
        """A repository inside the project (a submodule, or one made during the run), which
        git lists as one entry: what is inside it, by ralph's own walk. Never by git: its
        config, attributes and hooks are whoever made it's, and a filter or fsmonitor there
        would run as ralph. Every file but `.git`, what .ralphignore leaves out and tool
        output below it (its own .gitignore is not read: it may be the agent's)."""
        cut, skips = len(rel) + 1, self._nested_skips

        def skip(path: str) -> bool:
            hit = skips.get((cut, path))
            if hit is None:
                ignored = self._ignored(path.rstrip("/"), path.endswith("/"))
                hit = skips[cut, path] = ignored or is_scaffolding(path[cut:])
            return hit

        def of(path: str) -> str:
            return self._fingerprints.of(path, None, racy_from, cache)

        found = walk_folder(self.root, rel + "/", skip, of)
        self._nested_files[rel] = sorted(
            path[cut:]
            for path, fingerprint in found.items()
            if fingerprint != DELETED and not fingerprint.startswith(DIRECTORY)
        )
        data = json.dumps(sorted(found.items())).encode()
        return f"{DIRECTORY}:{hashlib.sha256(data).hexdigest()}"
