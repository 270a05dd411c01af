"""A clean room's copy kept in step with what it must hold, copying only what changed.

The manifest (beside the copy, never inside it: a check runs with the copy as its working
folder and may write anything there) maps each path to what it was made from (a source file's
size, mtime, ctime, inode and mode; a link's target; the sha256 of bytes placed instead) and
the copy's own stat. A sync walks the copy: whatever is not wanted, or whose source or copy
changed since (a check that rewrote, touched or chmod-ed a file changes its ctime, which cannot
be set back), goes; then what is missing is made. Sources are read and the copy written through
`ralph.store.confined`: a link planted on the way in either tree is refused, never followed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import shutil
import stat
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.errors import StateError, UnsafePath
from ralph.store import confined
from ralph.store.files import load_json, write_json_atomic

FORMAT = 1
RACY_NS = 2_000_000_000  # a source this young may change again within its mtime's tick
_CHUNK = 1 << 20
Key = list[Any]  # JSON-able, compared as loaded back


@dataclass(frozen=True)
class Want:
    """What one path of the copy is made from."""

    kind: str  # "file" (copied from the source tree), "link" (its target), "bytes" (given)
    key: Key  # what tells the source changed; never equal to a racy one's (it holds a null)
    data: bytes = b""  # a link's target, or the bytes to place


def want_file(tree: Path, rel: str, racy_from: int) -> Want | None:
    """The Want of `rel` in `tree` as it is now; None when it is gone or not a file or link."""
    try:
        st = os.lstat(tree / rel)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(str(tree / rel))  # noqa: PTH115 -- as written
        except OSError:
            return None
        return Want("link", [target], os.fsencode(target))
    if not stat.S_ISREG(st.st_mode):
        return None
    key: Key = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode & 0o777]
    if max(st.st_mtime_ns, st.st_ctime_ns) >= racy_from:
        key.append(None)  # copied again next time: the key cannot tell a same-tick rewrite
    return Want("file", key)


def want_bytes(data: bytes) -> Want:
    return Want("bytes", [hashlib.sha256(data).hexdigest()], data)


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
    manifest = known if known is not None else _load(manifest_file)
    folders = {rel[:i] for rel in wants for i, c in enumerate(rel) if c == "/"}
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
            copy = _copy_key(entry.stat(follow_symlinks=False))
            want, had = wants.get(rel), manifest.get(rel)
            if want is not None and had == [want.kind, want.key, copy]:
                kept[rel] = had
                continue
            Path(entry.path).unlink()  # a check's leftover, or out of date
            out.removed += int(want is None)
    failed: list[str] = []
    now: dict[str, Key] = dict(kept)
    try:
        for rel, want in wants.items():
            if rel in kept:
                continue
            made = _make(tree, room, rel, want)
            if made is None:
                failed.append(rel)
                continue
            now[rel] = [want.kind, want.key, made]
            out.copied += 1
    finally:
        write_json_atomic(manifest_file, {"format": FORMAT, "files": now}, durable=False)
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


def _load(manifest_file: Path) -> dict[str, Key]:
    try:
        data = load_json(manifest_file, "a clean room's manifest")
    except StateError:  # a damaged manifest only costs a full copy
        return {}
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        return {}
    files = data.get("files")
    return files if isinstance(files, dict) else {}


def _copy_key(st: os.stat_result) -> Key:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode]


def _make(tree: Path, room: Path, rel: str, want: Want) -> Key | None:
    """Make `rel` in the room; its copy key, or None when its source is gone or unsafe."""
    try:
        if want.kind == "link":
            with confined.folder(room, room / rel, create=True) as (fd, name):
                os.symlink(want.data, name, dir_fd=fd)
                return _copy_key(os.stat(name, dir_fd=fd, follow_symlinks=False))
        if want.kind == "bytes":
            return _write(room, rel, [want.data], 0o644, None)
        src = confined.open_fd(tree, tree / rel, os.O_RDONLY)
    except (UnsafePath, FileNotFoundError, NotADirectoryError):
        return None
    try:
        st = os.fstat(src)
        if [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino] != want.key[:4]:
            return None  # changed since it was listed: the next sync copies it
        chunks = iter(lambda: os.read(src, _CHUNK), b"")
        return _write(room, rel, chunks, st.st_mode & 0o777, (st.st_atime_ns, st.st_mtime_ns))
    finally:
        os.close(src)


def _write(room: Path, rel: str, chunks: Any, mode: int, times: tuple[int, int] | None) -> Key:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL
    fd = confined.open_fd(room, room / rel, flags, create_dirs=True)
    try:
        for chunk in chunks:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
        if hasattr(os, "fchmod"):  # not on Windows
            os.fchmod(fd, mode)
        if times is not None and os.utime in os.supports_fd:  # `make` compares times
            os.utime(fd, ns=times)
        return _copy_key(os.fstat(fd))
    finally:
        os.close(fd)


def racy_from() -> int:
    return time.time_ns() - RACY_NS
