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

from ralph.store.disk import confined, reader

RESET_HINT = (
    "ralph kept the file as it is; fix it by hand, or move it away to start over "
    "(every counter then starts again at 0/3)"
)


def load_json(path: Path, label: str) -> Any | None:
    """Parsed JSON of `path`, None when it does not exist; StateError when unreadable, not
    strict JSON, or a link, pipe or device (store/disk/reader.py: the one reader)."""
    return reader.load_json(path, label, hint=RESET_HINT)


def write_json_atomic(path: Path, data: Any, *, durable: bool = True) -> None:
    write_text_atomic(path, json.dumps(data, indent=2) + "\n", durable=durable)


def write_text_atomic(path: Path, text: str, *, durable: bool = True) -> None:
    """Write via a temporary file in the same folder, fsync, then rename over the target.

    A crash (or kill -9) at any moment leaves either the old file or the new one, never half of
    one; the temporary file a kill leaves behind is swept at the next run (`sweep_temps`). A
    path under a project's `.ralph/` is reached without following any link below the project
    folder (store/disk/confined.py); an OSError becomes one line saying what is actually wrong.
    """
    root = confined.project_anchor(path) or path.parent
    try:
        confined.write_atomic(root, path, text.encode("utf-8"), durable=durable)
    except OSError as exc:
        raise confined.explain(exc, path) from exc


TEMP_NAME = re.compile(r"^\..+\.[0-9a-f]{12}\.tmp$")


def sweep_temps(folders: list[Path]) -> None:
    """Delete what a save killed mid-write left in `folders` (call it holding the run lock):
    only names write_text_atomic makes, so nobody else's file goes."""
    for where in folders:
        root = confined.project_anchor(where / "x") or where
        confined.sweep_temps(root, [where], lambda name: bool(TEMP_NAME.match(name)))


def folders_below(top: Path, *, depth: int, skip: frozenset[str]) -> list[Path]:
    """`top` and its folders down to `depth` levels, never through a link and never into a
    folder named in `skip` (a lane's git worktree, a clean room: trees of their own, with no
    save of ralph's in them): where a killed save's temporary files are looked for."""
    found, level = [top], [top]
    for _ in range(depth):
        below: list[Path] = []
        for folder in level:
            try:
                with os.scandir(folder) as entries:
                    below += [
                        Path(e.path)
                        for e in entries
                        if e.name not in skip and e.is_dir(follow_symlinks=False)
                    ]
            except OSError:
                continue
        found += below
        level = below
    return found


def append_text(path: Path, text: str) -> None:
    """Append to a file (created with its folders when missing): only a regular file, never
    through a link (below the project folder for a path under its `.ralph/`; the file itself
    elsewhere, as in ralph's store), and a named pipe is refused, never waited on."""
    root = confined.project_anchor(path)
    if root is None:
        path.parent.mkdir(parents=True, exist_ok=True)
        root = path.parent
    try:
        confined.write_bytes(root, path, text.encode("utf-8"), append=True)
    except OSError as exc:
        raise confined.explain(exc, path) from exc


def make_dirs(path: Path) -> None:
    """A folder and those on its way; under a project's `.ralph/`, each a real folder."""
    root = confined.project_anchor(path)
    if root is None:
        path.mkdir(parents=True, exist_ok=True)
        return
    try:
        confined.makedirs(root, path)
    except OSError as exc:
        raise confined.explain(exc, path / "_") from exc


def remove_file(path: Path) -> None:
    """Delete a file (a link itself, never what it points to); nothing when it is not there."""
    root = confined.project_anchor(path)
    if root is None:
        path.unlink(missing_ok=True)
    else:
        confined.remove(root, path)


def refuse_link(path: Path) -> None:
    """UnsafePath when a path under a project's `.ralph/` is (or goes through) a link."""
    root = confined.project_anchor(path)
    if root is not None:
        confined.refuse_link(root, path)


def write_text_new(path: Path, text: str) -> None:
    """Create or truncate a file of `.ralph/` (prompt.md, question.md), reached without links."""
    root = confined.project_anchor(path) or path.parent
    try:
        confined.write_bytes(root, path, text.encode("utf-8"))
    except OSError as exc:
        raise confined.explain(exc, path) from exc


# How long a named pipe may wait for its reader before the write gives up.
FIFO_WAIT = 10.0
_OWN_FD = re.compile(r"^/(?:proc/(?:self|thread-self|(\d+))|dev)/fd/(\d+)$")
_STD = {"/dev/stdin": 0, "/dev/stdout": 1, "/dev/stderr": 2}


def write_text_through(path: Path, text: str, *, project: Path | None = None) -> None:
    """Write `text` to what `path` names, never replacing the path itself.

    A path inside `project` (the agent's ground) is written atomically without following any
    link below the project folder: a link there is refused (UnsafePath). Elsewhere, the
    person's: a regular file (or a symlink to one) is written atomically at the symlink's
    target, so the link stays a link; a named pipe or a device is opened and written to;
    /dev/stdout (or any /dev/fd/N of ralph's) is written through ralph's own descriptor, after
    what it printed.
    """
    data = text.encode("utf-8")
    fd = _own_descriptor(path)
    if fd is not None:
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):  # a closed or replaced stream: nothing to flush
                stream.flush()
        _write_all(fd, data)
        return
    inside = None if project is None else in_project(project, path)
    if inside is not None:
        target = inside / _below(inside, path)
        st = confined.lstat(inside, target)
        if st is not None and stat.S_ISFIFO(st.st_mode):  # the person's pipe: written into
            fd = _open_fifo(target, lambda flags: _open_below(inside, target, flags))
            try:
                _write_all(fd, data)
            finally:
                os.close(fd)
            return
        confined.write_atomic(inside, target, data, create_dirs=True)
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


def check_report_path(path: Path, project: Path) -> None:
    """UnsafePath now, before the run, when a report inside the project would go through a
    link (the same rule write_text_through applies when the report is written)."""
    if _own_descriptor(path) is not None:
        return
    inside = in_project(project, path)
    if inside is not None:
        confined.refuse_link(inside, inside / _below(inside, path))


def in_project(project: Path, path: Path) -> Path | None:
    """The project folder when `path` is inside it, as written (one of its folders is the
    project folder) or where it leads (its real path is inside the real project folder);
    None when it is neither: a person's path outside, written where it points."""
    written = Path(os.path.normpath(Path.cwd() / path))
    for above in written.parents:
        with contextlib.suppress(OSError):
            if above.samefile(project):
                return above
    real_project = Path(os.path.realpath(project))
    if Path(os.path.realpath(written)).is_relative_to(real_project):
        return real_project
    return None


def _below(above: Path, path: Path) -> Path:
    written = Path(os.path.normpath(Path.cwd() / path))
    if written.is_relative_to(above):
        return written.relative_to(above)
    return Path(os.path.realpath(written)).relative_to(above)


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


def _open_below(root: Path, path: Path, flags: int) -> int:
    """`path` opened with `flags`, reached from `root` with no link on the way (a pipe in the
    project: the name itself may not be a link either)."""
    with confined.folder(root, path) as (fd, name):
        return os.open(name, flags | getattr(os, "O_NOFOLLOW", 0), dir_fd=fd)


def _open_fifo(path: Path, opener: Callable[[int], int] | None = None) -> int:
    """A named pipe opened for writing once a reader is there: waited for FIFO_WAIT seconds at
    most, so a pipe nobody reads never hangs the end of a run (then: one line, the pipe is
    left as it is)."""
    nonblock = getattr(os, "O_NONBLOCK", 0)
    deadline = time.monotonic() + FIFO_WAIT
    while True:
        try:
            flags = os.O_WRONLY | nonblock
            fd = opener(flags) if opener is not None else os.open(path, flags)
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
    """A memory file's text; empty when it does not exist yet; undecodable bytes replaced.
    Under a project's `.ralph/` (guardrails, handoffs, logs) a link that leads outside the
    project is refused, and so is a pipe or a device (store/disk/reader.py)."""
    return reader.read_text(path, limit=reader.TEXT_LIMIT, follow=True, truncate=True)
