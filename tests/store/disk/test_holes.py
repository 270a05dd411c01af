"""Copies keep holes (store/disk/holes.py): an agent's sparse file costs ralph no more disk in a
clean room than it cost the agent; a file with data everywhere is copied byte for byte."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ralph.store.disk.holes import copy_fd
from ralph.store.rooms.room import RoomSource, build_room, record_start
from tests.conftest import Project

pytestmark = pytest.mark.skipif(
    not hasattr(os, "SEEK_DATA") or sys.platform == "win32", reason="no SEEK_DATA here"
)

GB = 1 << 30


def _sparse(path: Path) -> None:
    with path.open("wb") as f:
        f.write(b"head")
        f.seek(GB // 2)
        f.write(b"middle")
        f.truncate(GB)


def _allocated(path: Path) -> int:
    return path.stat().st_blocks * 512


def _copy(src: Path, dst: Path) -> None:
    s, d = os.open(src, os.O_RDONLY), os.open(dst, os.O_WRONLY | os.O_CREAT | os.O_EXCL)
    try:
        copy_fd(s, d)
    finally:
        os.close(s)
        os.close(d)


def test_a_sparse_file_is_copied_with_its_holes(tmp_path: Path) -> None:
    src = tmp_path / "big.bin"
    _sparse(src)
    if _allocated(src) > GB // 4:
        pytest.skip("this file system does not keep holes")
    dst = tmp_path / "copy.bin"
    _copy(src, dst)
    assert dst.stat().st_size == GB
    assert _allocated(dst) < 16 << 20  # the data, not the gigabyte
    with dst.open("rb") as f:
        assert f.read(4) == b"head"
        f.seek(GB // 2)
        assert f.read(6) == b"middle"
        f.seek(GB // 2 - 4)
        assert f.read(4) == b"\0\0\0\0"


def test_a_dense_file_is_copied_byte_for_byte(tmp_path: Path) -> None:
    src = tmp_path / "dense.bin"
    data = os.urandom(3 << 20) + b"tail"
    src.write_bytes(data)
    dst = tmp_path / "copy.bin"
    _copy(src, dst)
    assert dst.read_bytes() == data


def test_a_clean_room_keeps_a_sparse_file_sparse(git_project: Project) -> None:
    git_project.write({"a.py": "x = 1\n"})
    git_project.commit_all()
    source = RoomSource(git_project.root)
    record_start(git_project.root, source)
    _sparse(git_project.root / "big.bin")  # the agent's, after the start
    if _allocated(git_project.root / "big.bin") > GB // 4:
        pytest.skip("this file system does not keep holes")
    room = build_room(git_project.root, git_project.root, "main", source=source)
    copied = room.path / "big.bin"
    assert copied.stat().st_size == GB
    assert _allocated(copied) < 16 << 20
    assert (room.path / "a.py").read_text() == "x = 1\n"  # the control: a plain file as ever
