"""store/snapshots/fingerprint.py: a file's fingerprint is its git blob id, re-hashed only when its
stat
data says it may have changed; a link, a folder, a pipe or a file gone each say what they are.

Snapshots built on them are tests/store/snapshots/test_snapshotter.py's."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from ralph.store.snapshots.fingerprint import DELETED, CacheEntry, Fingerprints, blob_id

NOW = 1 << 62  # racy from the far future: every file is settled enough to cache
NEVER = 0  # every file is young: none is cached


def _git_hash(path: Path, *, algo: str = "sha1") -> str:
    cwd = path.parent
    if algo == "sha256":
        subprocess.run(["git", "init", "-q", "--object-format=sha256", str(cwd)], check=True)
    out = subprocess.run(
        ["git", "hash-object", "--no-filters", str(path)],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
    )
    return out.stdout.strip()


@pytest.mark.parametrize("size", [0, 5, (1 << 20) + 3])  # the last one is streamed
def test_a_files_fingerprint_is_its_git_blob_id(tmp_path: Path, size: int) -> None:
    data = bytes(range(256)) * (size // 256) + b"x" * (size % 256)
    (tmp_path / "f").write_bytes(data)
    fp = Fingerprints(tmp_path, "sha1", lambda rel, *_: "nested")
    assert fp.of("f", None, NOW, {}) == _git_hash(tmp_path / "f") == blob_id(data, "sha1")


def test_a_sha256_repositorys_ids_are_sha256(tmp_path: Path) -> None:
    (tmp_path / "f").write_bytes(b"hello\n")
    fp = Fingerprints(tmp_path, "sha256", lambda rel, *_: "nested")
    assert fp.of("f", None, NOW, {}) == _git_hash(tmp_path / "f", algo="sha256")


def test_a_link_is_its_target_as_written_and_a_folder_its_nested_print(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to("./x")
    (tmp_path / "sub").mkdir()
    fp = Fingerprints(tmp_path, "sha1", lambda rel, *_: f"nested:{rel}")
    assert fp.of("link", None, NOW, {}) == blob_id(b"./x", "sha1")
    assert fp.of("sub", None, NOW, {}) == "nested:sub"
    assert fp.of("gone", None, NOW, {}) == DELETED
    assert fp.of("link/below", None, NOW, {}) == DELETED


def test_a_pipe_is_special_and_never_read(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    fp = Fingerprints(tmp_path, "sha1", lambda rel, *_: "nested")
    assert fp.of("pipe", None, NOW, {}) == "special:10000"
    # a file swapped for a pipe after it was listed: opened without blocking, not read
    (tmp_path / "file").write_text("x")
    st = os.lstat(tmp_path / "file")
    (tmp_path / "file").unlink()
    os.mkfifo(tmp_path / "file")
    assert fp.of("file", st, NOW, {}) == "special:10000"


def test_an_unchanged_settled_file_is_not_hashed_again(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("one")
    fp = Fingerprints(tmp_path, "sha1", lambda rel, *_: "nested")
    cache: dict[str, CacheEntry] = {}
    first = fp.of("f", None, NOW, cache)
    assert fp.hashed_files == 1 and cache["f"][4] == first
    fp.keep(cache)
    assert fp.of("f", None, NOW, {}) == first and fp.hashed_files == 1
    (tmp_path / "f").write_text("two")  # same size, a new mtime and ctime
    assert fp.of("f", None, NOW, {}) != first and fp.hashed_files == 2


def test_a_young_file_is_never_cached(tmp_path: Path) -> None:
    (tmp_path / "f").write_text("one")
    fp = Fingerprints(tmp_path, "sha1", lambda rel, *_: "nested")
    cache: dict[str, CacheEntry] = {}
    fp.of("f", None, NEVER, cache)
    assert cache == {}  # a rewrite within its mtime's tick would go unseen
