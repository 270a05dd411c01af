"""Copies that keep a file's holes: an agent's sparse 10 GB file costs it nothing on disk, and
must cost ralph nothing either in each copy of the tree it makes (a clean room, the start copy).

Where the system tells a file's data from its holes (SEEK_DATA / SEEK_HOLE: Linux, macOS,
the BSDs), only the data is read and written, and the copy is given the same length, so its
holes stay holes. Elsewhere the bytes are copied as they are.
"""

from __future__ import annotations

import errno
import os

CHUNK = 1 << 20
_DATA = getattr(os, "SEEK_DATA", None)
_HOLE = getattr(os, "SEEK_HOLE", None)


def copy_fd(src: int, dst: int) -> None:
    """Copy the open file `src` into the empty file `dst` (both at offset 0), holes kept."""
    size = os.fstat(src).st_size
    if _DATA is None or _HOLE is None or not _copy_extents(src, dst, size, _DATA, _HOLE):
        os.lseek(src, 0, os.SEEK_SET)
        os.lseek(dst, 0, os.SEEK_SET)
        os.ftruncate(dst, 0)
        _copy_range(src, dst, 0, None)


def _copy_extents(src: int, dst: int, size: int, seek_data: int, seek_hole: int) -> bool:
    """The data extents of `src` copied at their offsets, `dst` then cut to `size`; False when
    the file system cannot say where the data is (the caller copies every byte)."""
    offset = 0
    while offset < size:
        try:
            start = os.lseek(src, offset, seek_data)
        except OSError as exc:
            if exc.errno == errno.ENXIO:  # no data after `offset`: a hole to the end
                break
            if exc.errno in (errno.EINVAL, errno.ENOTSUP, getattr(errno, "EOPNOTSUPP", 0)):
                return False
            raise
        end = os.lseek(src, start, seek_hole)
        _copy_range(src, dst, start, end - start)
        offset = end
    os.ftruncate(dst, size)
    return True


def _copy_range(src: int, dst: int, start: int, length: int | None) -> None:
    """`length` bytes of `src` from `start` (to its end when None) to the same offset of
    `dst`."""
    os.lseek(src, start, os.SEEK_SET)
    os.lseek(dst, start, os.SEEK_SET)
    left = length
    while left is None or left > 0:
        chunk = os.read(src, CHUNK if left is None else min(CHUNK, left))
        if not chunk:
            break
        view = memoryview(chunk)
        while view:
            view = view[os.write(dst, view) :]
        if left is not None:
            left -= len(chunk)
