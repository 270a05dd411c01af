"""Reading and writing ralph's own files: atomic writes, JSON that may be missing, memory files."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import re
import stat
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ralph.errors import StateError

RESET_HINT = (
    "ralph kept the file as it is; fix it by hand, or move it away to start over "
    "(every counter then starts again at 0/3)"
)


def load_json(path: Path, label: str) -> Any | None:
    """Parsed JSON of `path`, None when it does not exist; StateError when unreadable."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise StateError(f"{label}: cannot read ({exc.strerror or exc})", RESET_HINT) from exc
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise StateError(f"{label}: not valid JSON ({exc})", RESET_HINT) from exc


def write_json_atomic(path: Path, data: Any, *, durable: bool = True) -> None:
    write_text_atomic(path, json.dumps(data, indent=2) + "\n", durable=durable)


def write_text_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    """Write via a temporary file in the same folder, fsync, then rename over the target.

    A crash (or kill -9) at any moment leaves either the old file or the new one, never half of
    one. The temporary file is named before it is created, so an interrupt at any step of the
    write, even inside the call that creates it, is cleaned up by the last `finally`.
    """
    data = memoryview(text.encode("utf-8"))
    tmp = path.parent / f".{path.name}.{os.urandom(6).hex()}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
        try:
            if hasattr(os, "fchmod"):  # whatever the umask: state is not a secret
                os.fchmod(fd, 0o644)
            while data:
                data = data[os.write(fd, data) :]
            if durable:  # survives a power cut, not just a crash; run.json does not need it
                os.fsync(fd)
        finally:
            os.close(fd)
        tmp.replace(path)
    finally:
        tmp.unlink(missing_ok=True)


# How long a named pipe may wait for its reader before the write gives up.
FIFO_WAIT = 10.0
_OWN_FD = re.compile(r"^/(?:proc/(?:self|thread-self|(\d+))|dev)/fd/(\d+)$")
_STD = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}


def write_text_through(path: Path, text: str) -> None:
    """Write `text` to what `path` names, never replacing the path itself.

    A regular file (or a symlink to one) is written atomically at the symlink's target, so the
    link stays a link; a named pipe or a device is opened and written to; /dev/stdout (or any
    /dev/fd/N of ralph's) is written through ralph's own descriptor, after what it printed.
    """
    data = text.encode("utf-8")
    fd = _own_descriptor(path)
    if fd is not None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a closed or replaced stream: nothing to flush
                stream.flush()
        _write_all(fd, data)
        return
    try:
        mode = path.stat().st_mode  # follows links; a dangling link is a file to create
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        fifo = stat.S_ISFIFO(mode)
        fd = _open_fifo(path) if fifo else os.open(path, os.O_WRONLY | _NOCTTY)
        try:
            _write_all(fd, data)
        finally:
            os.close(fd)
        return
    target = Path(os.path.realpath(path))
    target.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(target, text)


_NOCTTY = getattr(os, "O_NOCTTY", 0)


def _own_descriptor(path: Path) -> int | None:
    """The descriptor of ralph's that `path` names (/dev/stdout, /dev/fd/N, /proc/self/fd/N),
    followed link by link: its target may be a file whose inode is ralph's own output."""
    current = path.absolute()
    for _ in range(40):  # the kernel's own limit on a chain of links
        name = os.path.normpath(current)
        if name in _STD:
            return _STD[name]
        found = _OWN_FD.match(name)
        if found and (found.group(1) is None or int(found.group(1)) == os.getpid()):
            return int(found.group(2))
        if not current.is_symlink():
            return None
        current = current.parent / current.readlink()  # an absolute target replaces the rest
    return None


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view) :]


def _open_fifo(path: Path) -> int:
    """A named pipe opened for writing once a reader is there: waited for FIFO_WAIT seconds at
    most, so a pipe nobody reads never hangs the end of a run."""
    nonblock = getattr(os, "O_NONBLOCK", 0)
    deadline = time.monotonic() + FIFO_WAIT
    while True:
        try:
            fd = os.open(path, os.O_WRONLY | nonblock)
        except OSError as exc:
            if exc.errno != errno.ENXIO or time.monotonic() >= deadline:
                if exc.errno == errno.ENXIO:
                    raise OSError(exc.errno, "nobody reads this named pipe") from exc
                raise
            time.sleep(0.05)
            continue
        if sys.platform != "win32":  # no named pipes there, nor set_blocking before 3.12
            os.set_blocking(fd, True)
        return fd


def redact_file(path: Path, redact: Callable[[str], str]) -> None:
    """Rewrite a text file (atomically) with `redact` applied, if that changes anything."""
    text = read_text(path)
    clean = redact(text)
    if clean != text:
        write_text_atomic(path, clean)


def read_text(path: Path) -> str:
    """A memory file's text; empty when it does not exist yet; undecodable bytes replaced."""
    try:
        return path.read_bytes().decode("utf-8", errors="replace")
    except FileNotFoundError:
        return ""
