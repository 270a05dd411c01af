"""One path of a clean room's copy: what it is made from (a file of the source tree, a link's
target, or bytes given), and making it. Sources are read and the copy written through
`ralph.store.disk.confined` or descriptors opened the same way: a link planted on the way in either
tree is refused, never followed.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import secrets
import stat
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.errors import UnsafePath
from ralph.store.disk import confined
from ralph.store.disk.holes import copy_fd

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


def racy_from() -> int:
    return time.time_ns() - RACY_NS


class Maker:
    """Makes the paths of one copy, in sorted order: with each folder's descriptor kept open
    where the system can (POSIX), else each file through store/disk/confined.py's calls."""

    def __init__(self, tree: Path, room: Path) -> None:
        self.tree, self.room = tree, room
        self.chains = (_Chain(tree, create=False), _Chain(room, create=True)) if _AT else None

    def __enter__(self) -> Callable[[str, Want], Key | None]:
        return self.make

    def make(self, rel: str, want: Want) -> Key | None:
        """Make `rel` in the room; its copy key, or None when its source is gone or unsafe."""
        if self.chains is not None:
            return _make_at(self.chains, rel, want)
        return _make(self.tree, self.room, rel, want)

    def __exit__(self, *_: object) -> None:
        for chain in self.chains or ():
            chain.close()


def copy_key(st: os.stat_result) -> Key:
    return [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode]


def _make(tree: Path, room: Path, rel: str, want: Want) -> Key | None:
    """Make `rel` in the room; its copy key, or None when its source is gone or unsafe."""
    try:
        if want.kind == "link":
            with confined.folder(room, room / rel, create=True) as (fd, name):
                os.symlink(want.data, name, dir_fd=fd)
                return copy_key(os.stat(name, dir_fd=fd, follow_symlinks=False))
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
        return copy_key(os.stat(name, dir_fd=room.fd(folder), follow_symlinks=False))
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
        return copy_key(os.fstat(fd))
    finally:
        os.close(fd)


class _Chain:
    """Descriptors of the folders from a root down to the one in hand, each opened without
    following a link (as store/disk/confined.py does), kept while the files of one folder are
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
        return copy_key(os.fstat(fd))
    finally:
        os.close(fd)
