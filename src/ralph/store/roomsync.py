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
import json
import os
import secrets
import shutil
import stat
import sys
import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.errors import StateError, UnsafePath
from ralph.store import confined
from ralph.store.files import load_json, write_text_atomic
from ralph.store.holes import copy_fd

FORMAT = 1
RACY_NS = 2_000_000_000  # a source this young may change again within its mtime's tick
_CHUNK = 1 << 20
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
# descriptors relative to a folder's: POSIX; elsewhere each file goes through confined's calls
_AT = os.open in os.supports_dir_fd and os.symlink in os.supports_dir_fd and bool(_NOFOLLOW)
Key = list[Any]  # JSON-able, compared as loaded back


@dataclass(frozen=True)
class Want:
    """What one path of the copy is made from."""

    kind: str  # "file" (copied from the source tree), "link" (its target), "bytes" (given)
    key: Key  # what tells the source changed; never equal to a racy one's (it holds a null)
    data: bytes = b""  # a link's target, or the bytes to place
    mode: int = 0o644  # the bytes' file mode
    # given bytes standing in for a file of the tree: its (atime, mtime), which they are
    # written with (and its mode), so that the file differs from the tree's by its bytes alone
    times: tuple[int, int] | None = None


def want_file(prefix: str, rel: str, racy_from: int) -> Want | None:
    """The Want of `rel` under `prefix` (a tree's folder and a separator: str concatenation,
    a Path per file costs more than the lstat) as it is now; None when it is gone or not a
    file or link."""
    try:
        st = os.lstat(prefix + rel)
    except OSError:
        return None
    if stat.S_ISLNK(st.st_mode):
        try:
            target = os.readlink(prefix + rel)  # noqa: PTH115 -- as written
        except OSError:
            return None
        return Want("link", [target], os.fsencode(target))
    if not stat.S_ISREG(st.st_mode):
        return None
    key: Key = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode & 0o777]
    if max(st.st_mtime_ns, st.st_ctime_ns) >= racy_from:
        key.append(None)  # copied again next time: the key cannot tell a same-tick rewrite
    return Want("file", key)


def want_bytes(
    data: bytes, mode: int = 0o644, *, times: tuple[int, int] | None = None, fresh: bool = False
) -> Want:
    """Bytes to place. `fresh`: written anew at every sync, kept or not (a new inode and
    change time each time, like every other file placed by the same sync)."""
    key: Key = [hashlib.sha256(data).hexdigest(), mode]
    if fresh:
        key.append(secrets.token_hex(8))
    return Want("bytes", key, data, mode, times)


def like_file(path: Path) -> tuple[int, tuple[int, int]] | None:
    """The mode and (atime, mtime) of the regular file at `path` (never through a link)."""
    try:
        st = os.lstat(path)
    except OSError:
        return None
    if not stat.S_ISREG(st.st_mode):
        return None
    return st.st_mode & 0o777, (st.st_atime_ns, st.st_mtime_ns)


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
            copy = _copy_key(entry.stat(follow_symlinks=False))
            want, had = wants.get(rel), manifest.get(rel)
            if want is not None and had == [want.kind, want.key, copy]:
                kept[rel] = had
                continue
            Path(entry.path).unlink()  # a check's leftover, or out of date
            out.removed += int(want is None)
    failed: list[str] = []
    now: dict[str, Key] = dict(kept)
    chains = (_Chain(tree, create=False), _Chain(room, create=True)) if _AT else None
    try:
        for rel in sorted(wants.keys() - kept.keys()):  # by folder: each opened once
            want = wants[rel]
            made = _make_at(chains, rel, want) if chains else _make(tree, room, rel, want)
            if made is None:
                failed.append(rel)
                continue
            now[rel] = [want.kind, want.key, made]
            out.copied += 1
    finally:
        for chain in chains or ():
            chain.close()
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
            return _write(room, rel, [want.data], want.mode, want.times)
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


def _make_at(chains: tuple[_Chain, _Chain], rel: str, want: Want) -> Key | None:
    """`_make` with the folders' descriptors kept open (POSIX)."""
    source, room = chains
    folder, _, name = rel.rpartition("/")
    if want.kind == "link":
        os.symlink(want.data, name, dir_fd=room.fd(folder))
        return _copy_key(os.stat(name, dir_fd=room.fd(folder), follow_symlinks=False))
    if want.kind == "bytes":
        return _write_at(room.fd(folder), name, [want.data], want.mode, want.times)
    try:
        src = os.open(
            name, os.O_RDONLY | _NOFOLLOW | _NONBLOCK | _CLOEXEC, dir_fd=source.fd(folder)
        )
    except OSError:  # gone, or a link planted on the way: the next sync looks again
        return None
    try:
        st = os.fstat(src)
        if (
            not stat.S_ISREG(st.st_mode)
            or [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino] != want.key[:4]
        ):
            return None  # changed since it was listed: the next sync copies it
        if sys.platform != "win32":  # this path is POSIX's (see _AT)
            os.set_blocking(src, True)
        times = (st.st_atime_ns, st.st_mtime_ns)  # the source's descriptor: holes kept
        return _write_at(room.fd(folder), name, src, st.st_mode & 0o777, times)
    finally:
        os.close(src)


def _write_at(folder: int, name: str, chunks: Any, mode: int, times: tuple[int, int] | None) -> Key:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC
    fd = os.open(name, flags, 0o644, dir_fd=folder)
    try:
        if isinstance(chunks, int):  # a file of the tree: a sparse one stays sparse
            copy_fd(chunks, fd)
        for chunk in () if isinstance(chunks, int) else chunks:
            view = memoryview(chunk)
            while view:
                view = view[os.write(fd, view) :]
        if sys.platform != "win32":  # this path is POSIX's (see _AT)
            os.fchmod(fd, mode)
        if times is not None:  # as a copy keeps it: `make` compares times
            os.utime(fd, ns=times)
        return _copy_key(os.fstat(fd))
    finally:
        os.close(fd)


class _Chain:
    """Descriptors of the folders from a root down to the one in hand, each opened without
    following a link (as store/confined.py does), kept while the files of one folder are
    made: a sync handles paths in sorted order, so each folder is opened once."""

    def __init__(self, root: Path, *, create: bool) -> None:
        self.root, self.create = root, create
        self.stack: list[tuple[str, int]] = []  # (folder, descriptor), the root's first

    def fd(self, folder: str) -> int:
        parts = folder.split("/") if folder else []
        if not self.stack:
            self.stack.append(("", os.open(self.root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)))
        keep = 1
        while keep < len(self.stack) and keep <= len(parts):
            if self.stack[keep][0] != "/".join(parts[:keep]):
                break
            keep += 1
        for _, fd in self.stack[keep:]:
            os.close(fd)
        del self.stack[keep:]
        for i in range(keep, len(parts) + 1):
            parent = self.stack[-1][1]
            if self.create:
                with contextlib.suppress(FileExistsError):
                    os.mkdir(parts[i - 1], 0o755, dir_fd=parent)
            flags = os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC
            self.stack.append(("/".join(parts[:i]), os.open(parts[i - 1], flags, dir_fd=parent)))
        return self.stack[-1][1]

    def close(self) -> None:
        for _, fd in self.stack:
            os.close(fd)
        self.stack = []


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
