"""Fingerprints of files (git blob ids), with a stat cache so unchanged files are not re-hashed."""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path

DELETED = "deleted"
DIRECTORY = "dir"  # a nested repository or submodule: git tracks it as one entry, not its files
UNREADABLE = "unreadable"

_CHUNK = 1 << 20
_OPEN_FLAGS = os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_NONBLOCK", 0)

# (size, mtime_ns, ino, ctime_ns, fingerprint)
CacheEntry = tuple[int, int, int, int, str]


class Fingerprints:
    """The fingerprints of the files under one root, cached by their stat data between takes."""

    def __init__(
        self, root: Path, algo: str, nested: Callable[[str, int, dict[str, CacheEntry]], str]
    ) -> None:
        # str concatenation: a Path per file is measurably slower on large trees.
        self._root_prefix = str(root).rstrip(os.sep) + os.sep
        self.algo = algo
        # the fingerprint of a folder git lists as one entry, given `of`'s racy_from and cache
        self._nested = nested
        self.hashed_files = 0  # files hashed since the last take began: the cache at work
        self._cache: dict[str, CacheEntry] = {}

    def keep(self, cache: dict[str, CacheEntry]) -> None:
        """The cache one take filled becomes the one the next take reads."""
        self._cache = cache

    def of(
        self,
        rel: str,
        st: os.stat_result | None,
        racy_from: int,
        cache: dict[str, CacheEntry],
    ) -> str:
        """The fingerprint of root-relative `rel`; files older than `racy_from` go into `cache`."""
        path = self._root_prefix + rel
        try:
            if st is None:
                st = os.lstat(path)
            if stat.S_ISLNK(st.st_mode):
                # Path.readlink would normalise the target ("./x" -> "x"); git stores it as is.
                target = os.readlink(os.fsencode(path))  # noqa: PTH115
                return blob_id(target, self.algo)
        except (FileNotFoundError, NotADirectoryError):
            return DELETED
        except OSError:
            return UNREADABLE
        if stat.S_ISDIR(st.st_mode):
            return self._nested(rel, racy_from, cache)
        if not stat.S_ISREG(st.st_mode):
            return f"special:{stat.S_IFMT(st.st_mode):o}"
        key = (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)
        cached = self._cache.get(rel)
        if cached is not None and cached[:4] == key:
            fingerprint = cached[4]
        else:
            try:
                fingerprint = _hash_file(path, self.algo)
            except (FileNotFoundError, NotADirectoryError):
                return DELETED
            except OSError:
                # Still changes when the file does, which is all a fingerprint must do.
                return f"{UNREADABLE}:{st.st_size}:{st.st_mtime_ns}"
            self.hashed_files += 1
        if max(st.st_mtime_ns, st.st_ctime_ns) < racy_from:
            cache[rel] = (*key, fingerprint)
        return fingerprint


def blob_id(data: bytes, algo: str) -> str:
    hasher = hashlib.new(algo, b"blob %d\0" % len(data), usedforsecurity=False)
    hasher.update(data)
    return hasher.hexdigest()


def _hash_file(path: str, algo: str) -> str:
    """The git blob id of a regular file, the same `git hash-object` prints."""
    # O_NONBLOCK: a file swapped for a fifo since lstat must not hang the snapshot.
    with os.fdopen(os.open(path, _OPEN_FLAGS), "rb", buffering=0) as f:
        st = os.fstat(f.fileno())
        if not stat.S_ISREG(st.st_mode):
            return f"special:{stat.S_IFMT(st.st_mode):o}"
        if st.st_size <= _CHUNK:
            return blob_id(f.read(), algo)
        # The header needs the length up front: stream with the stat size, and start over
        # in memory if the file grew or shrank while we read it.
        hasher = hashlib.new(algo, b"blob %d\0" % st.st_size, usedforsecurity=False)
        total = 0
        while chunk := f.read(_CHUNK):
            hasher.update(chunk)
            total += len(chunk)
        if total == st.st_size:
            return hasher.hexdigest()
        f.seek(0)
        return blob_id(f.read(), algo)
