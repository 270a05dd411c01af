"""A clean room's copy kept in step with what it must hold, copying only what changed.

The manifest (beside the copy, never inside it: a check runs with the copy as its working
folder and may write anything there) maps each path to what it was made from (a source file's
size, mtime, ctime, inode and mode; a link's target; the sha256 of bytes placed instead) and
the copy's own stat. A sync walks the copy: whatever is not wanted, or whose source or copy
changed since (a check that rewrote, touched or chmod-ed a file changes its ctime, which cannot
be set back), goes; then what is missing is made (store/rooms/roomfile.py: never through a link).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.errors import StateError
from ralph.store.disk.files import load_json, write_text_atomic
from ralph.store.rooms.roomfile import Key, Maker, Want, copy_key

FORMAT = 1


@dataclass
class Synced:
    copied: int = 0
    removed: int = 0
    failed: tuple[str, ...] = ()  # wanted paths that could not be made (gone, or a link)
    manifest: dict[str, Key] | None = None  # for the next sync's `known`


def sync(
    tree: Path,
    room: Path,
    manifest_file: Path,
    wants: Mapping[str, Want],
    spare: frozenset[str] = frozenset(),
    known: dict[str, Key] | None = None,
) -> Synced:
    """Make `room` hold exactly `wants` (path -> Want), reusing what is still good; the
    top-level names in `spare` are the caller's to keep or remove. `known`: the manifest as
    the last sync of this process left it (`Synced.manifest`), trusted over the file, which
    a check's code could have rewritten; the file serves the first sync of the next run."""
    room.mkdir(mode=0o700, parents=True, exist_ok=True)
    manifest = known if known is not None else load_manifest(manifest_file)
    folders: set[str] = set()
    for rel in wants:
        end = rel.rfind("/")
        while end > 0 and rel[:end] not in folders:
            folders.add(rel[:end])
            end = rel.rfind("/", 0, end)
    kept: dict[str, Key] = {}
    out = Synced()
    stack = [""]
    while stack:
        base = stack.pop()
        with os.scandir(room / base if base else room) as scan:
            entries = list(scan)
        for entry in entries:
            rel = base + entry.name
            if rel in spare:
                continue
            if entry.is_dir(follow_symlinks=False):
                if rel in folders:
                    stack.append(rel + "/")
                else:
                    wipe(Path(entry.path))
                    out.removed += 1
                continue
            copy = copy_key(entry.stat(follow_symlinks=False))
            want, had = wants.get(rel), manifest.get(rel)
            if want is not None and had == [want.kind, want.key, copy]:
                kept[rel] = had
                continue
            Path(entry.path).unlink()  # a check's leftover, or out of date
            out.removed += int(want is None)
    failed: list[str] = []
    now: dict[str, Key] = dict(kept)
    try:
        with Maker(tree, room) as make:
            for rel in sorted(wants.keys() - kept.keys()):  # by folder: each opened once
                want = wants[rel]
                made = make(rel, want)
                if made is None:
                    failed.append(rel)
                    continue
                now[rel] = [want.kind, want.key, made]
                out.copied += 1
    finally:
        if now != manifest or not manifest_file.exists():
            text = json.dumps({"format": FORMAT, "files": now}, separators=(",", ":"))
            write_text_atomic(manifest_file, text, durable=False)
    out.failed, out.manifest = tuple(failed), now
    return out


def wipe(path: Path) -> None:
    """Delete a folder of a room whatever a check did to it (a folder made unreadable)."""

    def again(func: Any, name: str, _exc: object) -> None:
        with contextlib.suppress(OSError):
            os.chmod(os.path.dirname(name), 0o700)  # noqa: PTH101, PTH120
            if os.path.isdir(name) and not os.path.islink(name):  # noqa: PTH112, PTH114
                os.chmod(name, 0o700)  # noqa: PTH101
        func(name)

    if path.is_symlink() or not path.is_dir():
        path.unlink(missing_ok=True)
        return
    shutil.rmtree(path, onerror=again)


def load_manifest(manifest_file: Path) -> dict[str, Key]:
    try:
        data = load_json(manifest_file, "a clean room's manifest")
    except StateError:  # a damaged manifest only costs a full copy
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    files = data.get("files")
    return files if isinstance(files, dict) else {}
