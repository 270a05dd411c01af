"""Files in the project reached without following a link planted below the project folder.

The rule (docs/explanation/files-and-links.md): every file ralph writes, replaces, creates or
deletes in the project is reached from the project folder one name at a time, and none of those
names may be a symbolic link: on POSIX each folder is opened with O_NOFOLLOW relative to the
descriptor of the one above (openat), so a link swapped in at any moment is refused, never
followed. The project folder itself is the person's choice and may be reached through links.
Reads of what an agent can write go through store/disk/reader.py, which walks the same way.

Windows has no openat: there each name is checked (lstat, reparse points included) before the
plain call, which leaves a race between the check and the call.
"""

from __future__ import annotations

import errno
import os
import stat
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path

from ralph.errors import FileProblem, UnsafePath

STATE_DIR = ".ralph"
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_DIRECTORY = getattr(os, "O_DIRECTORY", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_AT = os.open in os.supports_dir_fd and os.unlink in os.supports_dir_fd and bool(_NOFOLLOW)
_REPARSE = getattr(stat, "FILE_ATTRIBUTE_REPARSE_POINT", 0x400)


def project_anchor(path: Path) -> Path | None:
    """The project folder of a path under its `.ralph/` folder (the folder above the first
    `.ralph` name); None for a path elsewhere (ralph's private store, a person's report)."""
    parts = path.parts
    if STATE_DIR not in parts or not path.is_absolute():
        return None
    return Path(*parts[: parts.index(STATE_DIR)])


def _refuse(root: Path, parts: tuple[str, ...], i: int, what: str) -> UnsafePath:
    shown = "/".join(parts[: i + 1])
    link = what == "is a link"  # else a pipe, a device, a socket or a folder: said as such
    return UnsafePath(
        f"{shown} in {root} {what}: ralph reads and writes its files only inside the "
        + ("project, never through a link" if link else "project, as regular files"),
        f"remove {'the link' if link else 'it'} ({shown}) and run again; nothing outside the "
        "project was touched",
    )


def _parts(root: Path, path: Path) -> tuple[str, ...]:
    try:
        parts = path.relative_to(root).parts
    except ValueError:
        raise UnsafePath(f"{path} is not inside the project {root}") from None
    if not parts or ".." in parts:
        raise UnsafePath(f"{path} is not a file inside the project {root}")
    return parts


def _is_link(st: os.stat_result) -> bool:
    return stat.S_ISLNK(st.st_mode) or bool(getattr(st, "st_file_attributes", 0) & _REPARSE)


@contextmanager
def folder(root: Path, path: Path, *, create: bool = False) -> Iterator[tuple[int | None, str]]:
    """(a descriptor of the folder holding `path`, reached without links; its last name).
    `create` makes the missing folders on the way. Without openat (Windows) the descriptor is
    None and the name is the whole path, checked name by name."""
    parts = _parts(root, path)
    if not _AT:
        _check_names(root, parts, create)
        yield None, str(path)
        return
    fd = os.open(root, os.O_RDONLY | _DIRECTORY | _CLOEXEC)
    try:
        for i, name in enumerate(parts[:-1]):
            if create:
                with suppress(FileExistsError):
                    os.mkdir(name, 0o755, dir_fd=fd)
            try:
                inner = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    what = "is a link" if _is_link(st) else "is not a folder"
                    raise _refuse(root, parts, i, what) from None
                raise
            os.close(fd)
            fd = inner
        yield fd, parts[-1]
    finally:
        os.close(fd)


def _check_names(root: Path, parts: tuple[str, ...], create: bool) -> None:
    current = root
    for i, name in enumerate(parts):
        current = current / name
        try:
            st = os.lstat(current)
        except FileNotFoundError:
            if create and i < len(parts) - 1:
                current.mkdir()
            continue
        if _is_link(st):
            raise _refuse(root, parts, i, "is a link")


def lstat(root: Path, path: Path) -> os.stat_result | None:
    """The file's own status (a link's, not its target's); None when it does not exist."""
    try:
        with folder(root, path) as (fd, name):
            return os.stat(name, dir_fd=fd, follow_symlinks=False)
    except FileNotFoundError:
        return None


def refuse_link(root: Path, path: Path) -> None:
    """UnsafePath when `path` (or a folder on its way) is a link."""
    st = lstat(root, path)
    if st is not None and _is_link(st):
        raise _refuse(root, _parts(root, path), len(_parts(root, path)) - 1, "is a link")


def open_fd(root: Path, path: Path, flags: int, *, create_dirs: bool = False) -> int:
    """A descriptor of a regular file in the project (os.open's `flags`): a link at any name
    is refused, and so is a named pipe or a device (they could block or reach elsewhere)."""
    with folder(root, path, create=create_dirs) as (fd, name):
        try:
            out = os.open(name, flags | _NOFOLLOW | _NONBLOCK | _CLOEXEC, 0o644, dir_fd=fd)
        except OSError as exc:
            if exc.errno in (errno.ELOOP, errno.EMLINK, errno.ENXIO):
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                what = "is a link" if _is_link(st) else "is not a regular file"
                parts = _parts(root, path)
                raise _refuse(root, parts, len(parts) - 1, what) from None
            raise
    if not stat.S_ISREG(os.fstat(out).st_mode):
        os.close(out)
        parts = _parts(root, path)
        raise _refuse(root, parts, len(parts) - 1, "is not a regular file")
    if sys.platform != "win32":  # no O_NONBLOCK there (nor set_blocking before 3.12)
        os.set_blocking(out, True)
    return out


def write_atomic(
    root: Path, path: Path, data: bytes, *, durable: bool = True, create_dirs: bool = False
) -> None:
    """Replace `path` by a temporary file renamed over it, all inside one folder reached
    without links; a link where the file is refused (rename would not follow it, but a
    person reading the link would take ralph's file for the target's)."""
    with folder(root, path, create=create_dirs) as (fd, name):
        # beside the file (without openat `name` is the whole path)
        head, base = os.path.split(name)
        tmp = os.path.join(head, f".{base}.{os.urandom(6).hex()}.tmp")  # noqa: PTH118 -- a str for dir_fd
        try:
            out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=fd)
            try:
                if hasattr(os, "fchmod"):  # whatever the umask: state is not a secret
                    os.fchmod(out, 0o644)
                view = memoryview(data)
                while view:
                    view = view[os.write(out, view) :]
                if durable:  # survives a power cut, not just a crash
                    os.fsync(out)
            finally:
                os.close(out)
            refuse_link(root, path)
            os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
        finally:
            with suppress(FileNotFoundError):
                os.unlink(tmp, dir_fd=fd)


def write_bytes(root: Path, path: Path, data: bytes, *, append: bool = False) -> None:
    """Write (or append) `data` to a regular file of the project, creating it and its folders."""
    flags = os.O_WRONLY | os.O_CREAT | (os.O_APPEND if append else os.O_TRUNC)
    fd = open_fd(root, path, flags, create_dirs=True)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def makedirs(root: Path, path: Path) -> None:
    """`path` and the folders on its way, each a real folder of the project."""
    with folder(root, path / "_", create=True):
        pass


def remove(root: Path, path: Path) -> None:
    """Delete a file (a link itself, never its target); nothing when it is not there."""
    with folder(root, path) as (fd, name), suppress(FileNotFoundError):
        os.unlink(name, dir_fd=fd)


def remove_tree(root: Path, path: Path) -> None:
    """Delete a folder of the project and everything in it; a link (the folder, or one on its
    way) is refused before anything is deleted, and a link inside is deleted, not followed."""
    refuse_link(root, path)
    with folder(root, path) as (fd, name), suppress(FileNotFoundError):
        if fd is None:  # Windows: rmtree deletes a junction or a link inside, never follows it
            import shutil

            shutil.rmtree(name)
        else:
            _clear(fd, name)


def _clear(parent: int, name: str) -> None:
    """Delete the folder `name` of the folder `parent` and what is in it, descriptor by
    descriptor: a link inside is deleted as a file, never followed."""
    fd = os.open(name, os.O_RDONLY | _DIRECTORY | _NOFOLLOW | _CLOEXEC, dir_fd=parent)
    try:
        with os.scandir(fd) as entries:
            for entry in list(entries):
                if entry.is_dir(follow_symlinks=False):
                    _clear(fd, entry.name)
                else:
                    os.unlink(entry.name, dir_fd=fd)
    finally:
        os.close(fd)
    os.rmdir(name, dir_fd=parent)


def move(root: Path, source: Path, target: Path) -> None:
    """Rename a file or folder of the project to another place in it."""
    with folder(root, source) as (sfd, sname), folder(root, target, create=True) as (tfd, tname):
        os.replace(sname, tname, src_dir_fd=sfd, dst_dir_fd=tfd)


def sweep_temps(root: Path, folders: list[Path], match: Callable[[str], bool]) -> None:
    """Delete the temporary files a killed save left (`.NAME.<12 hex>.tmp`) in `folders`."""
    for where in folders:
        try:
            names = [p.name for p in where.iterdir()]
        except OSError:
            continue
        for name in names:
            if match(name):
                try:
                    remove(root, where / name)
                except (OSError, UnsafePath):
                    continue


def explain(exc: OSError, path: Path) -> FileProblem:
    """What is actually wrong when a file of `.ralph/` cannot be written."""
    where = path.parent
    if exc.errno == errno.ENOENT:
        what = f"its folder {where} was deleted (while ralph ran?)"
        hint = "run again: a run makes its folders anew (what was in them is lost)"
    elif exc.errno in (errno.EISDIR, errno.ENOTEMPTY, errno.EEXIST):
        what, hint = "it is a folder, not a file", f"move the folder {path} away"
    elif exc.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        what, hint = f"{where} is read-only", f"make {where} writable again"
    elif exc.errno in (errno.ENOSPC, getattr(errno, "EDQUOT", errno.ENOSPC)):
        what, hint = "the disk is full", "free some disk space"
    else:
        what, hint = exc.strerror or str(exc), "check the folder's permissions and free space"
    return FileProblem(f"cannot write {path}: {what}", hint)
