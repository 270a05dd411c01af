"""Snapshots without git: a walk of the whole tree, every file fingerprinted (most from cache);
and the walk of one folder that git ignores but the person's ignore rules do not."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from ralph.errors import StateError
from ralph.store.disk.workspace import STATE_DIR
from ralph.store.snapshots.fingerprint import UNREADABLE, CacheEntry, Fingerprints
from ralph.store.snapshots.ignore import WalkIgnore


def walk(
    root: Path, ignore: WalkIgnore, fingerprints: Fingerprints, racy_from: int
) -> dict[str, str]:
    """Root-relative posix path -> fingerprint of every file and symlink git would track."""
    entries: dict[str, str] = {}
    cache: dict[str, CacheEntry] = {}
    memo: dict[str, bool] = {}
    ignore.refresh()
    ignored = ignore.hit
    fingerprint = fingerprints.of
    stack: list[tuple[str, str]] = [("", str(root))]
    while stack:
        rel_dir, abs_dir = stack.pop()
        try:
            scan = os.scandir(abs_dir)
        except FileNotFoundError:
            if not rel_dir:
                raise StateError(
                    f"{root}: project folder not found",
                    "run ralph from an existing project folder",
                ) from None
            continue  # removed while we walked: its files are simply absent
        except OSError as exc:
            if not rel_dir:
                raise StateError(
                    f"{root}: cannot list the project folder ({exc.strerror or exc})",
                    "check the folder's permissions",
                ) from exc
            entries[rel_dir.rstrip("/")] = UNREADABLE
            continue
        with scan:
            for entry in scan:
                name = entry.name
                if name == ".git" or (name == STATE_DIR and not rel_dir):
                    continue
                rel = rel_dir + name
                try:
                    if entry.is_dir(follow_symlinks=False):
                        if not ignored(rel + "/", memo):
                            stack.append((rel + "/", entry.path))
                    elif ignored(rel, memo):
                        continue
                    elif entry.is_file(follow_symlinks=False):
                        st = entry.stat(follow_symlinks=False)
                        entries[rel] = fingerprint(rel, st, racy_from, cache)
                    elif entry.is_symlink():
                        entries[rel] = fingerprint(rel, None, racy_from, cache)
                    # git does not track sockets, fifos or devices either
                except FileNotFoundError:
                    continue  # removed while we walked
                except OSError:
                    entries[rel] = UNREADABLE
    fingerprints.keep(cache)
    ignore.keep(memo)
    return entries


def walk_folder(
    root: Path, rel_dir: str, skip: Callable[[str], bool], fingerprint: Callable[[str], str]
) -> dict[str, str]:
    """Root-relative path -> fingerprint of the files under `rel_dir` ("dir/") but those
    `skip` names (folders end in "/") and `.git`; a repository inside is one entry, as git
    lists it."""
    entries: dict[str, str] = {}
    stack = [rel_dir]
    while stack:
        folder = stack.pop()
        if folder != rel_dir and (root / folder / ".git").exists():
            entries[folder.rstrip("/")] = fingerprint(folder.rstrip("/"))
            continue
        try:
            scan = os.scandir(root / folder)
        except FileNotFoundError:
            continue
        except OSError:
            entries[folder.rstrip("/")] = UNREADABLE
            continue
        with scan:
            for entry in scan:
                if entry.name == ".git":
                    continue
                rel = folder + entry.name
                try:
                    is_dir = entry.is_dir(follow_symlinks=False)
                except OSError:
                    is_dir = False
                if is_dir:
                    if not skip(rel + "/"):
                        stack.append(rel + "/")
                elif not skip(rel):
                    entries[rel] = fingerprint(rel)
    return entries
