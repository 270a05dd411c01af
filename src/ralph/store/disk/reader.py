"""The one reader of files an agent could have touched (docs/explanation/files-and-links.md).

Anything in the project is the agent's word: `.ralph/`, the work tree, `ralph.yaml`, the specs, a
JUnit or JSON report a check wrote in a room the agent's code ran in. Every read of such a path
goes through here, and each one:

- reaches the file one name at a time from a folder ralph chose (`root`), refusing a link at any
  name below it (store/disk/confined.py's openat walk); `follow=True` lets a link through only when
  it ends inside `root` (a person's `specs/a.spec.md -> ../notes/a.md`);
- refuses anything that is not a regular file *without blocking*: the name is looked at before
  it is opened, the open is non-blocking, and the descriptor is looked at again (a named pipe, a
  device or a socket swapped in between is refused, never read);
- reads at most `limit` bytes, the caller's bound: past it, `TooLarge` (one line) or, for text
  shown to a person, the first `limit` bytes with `Read.truncated` set;
- parses JSON strictly: no NaN or Infinity, at most JSON_DEPTH levels, one line when it is not.

Windows has no openat: there each name is checked before the plain call (confined.py).
"""

from __future__ import annotations

import errno
import json
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from ralph.errors import StateError, UnsafePath
from ralph.store.disk import confined

# Bounds callers pick from (bytes). A record ralph wrote is far below its bound; the bound only
# stops an agent's 10 GB file (or one that claims to be sparse) from costing memory or time.
RECORD_LIMIT = 64 * 1024 * 1024  # state.json, a store record, a worklog
TEXT_LIMIT = 8 * 1024 * 1024  # a spec, guardrails, a handoff, a report a check wrote
LOG_LIMIT = 32 * 1024 * 1024  # a rotation's log shown to a person
REPORT_LIMIT = 64 * 1024 * 1024  # a JUnit or JSON report a check's command wrote
JSON_DEPTH = 64  # more levels than any record of ralph's or any report a tool writes

_FLAGS = (
    os.O_RDONLY
    | getattr(os, "O_NOFOLLOW", 0)
    | getattr(os, "O_NONBLOCK", 0)
    | getattr(os, "O_NOCTTY", 0)
    | getattr(os, "O_CLOEXEC", 0)
    | getattr(os, "O_BINARY", 0)
)


class TooLarge(StateError):
    """A file is larger than the bound its reader set."""


@dataclass(frozen=True)
class Read:
    """What was read; `truncated` when the file held more than the limit."""

    data: bytes
    truncated: bool = False

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


def _shown(root: Path, path: Path) -> str:
    try:
        return path.relative_to(root).as_posix()
    except ValueError:
        return str(path)


def _not_regular(root: Path, path: Path, st: os.stat_result) -> UnsafePath:
    kind = (
        "a link"
        if stat.S_ISLNK(st.st_mode)
        else "a named pipe"
        if stat.S_ISFIFO(st.st_mode)
        else "a socket"
        if stat.S_ISSOCK(st.st_mode)
        else "a device"
        if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
        else "a folder"
        if stat.S_ISDIR(st.st_mode)
        else "not a regular file"
    )
    shown = _shown(root, path)
    return UnsafePath(
        f"{shown} in {root} is {kind}: ralph reads only regular files there, never through a link",
        f"replace {shown} by a regular file (or remove it) and run again",
    )


def _open(root: Path, path: Path) -> int:
    """A descriptor of the regular file `path`, reached from `root` with no link on the way."""
    with confined.folder(root, path) as (fd, name):
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)  # FileNotFoundError passes
        if not stat.S_ISREG(st.st_mode) or confined._is_link(st):
            raise _not_regular(root, path, st)
        try:
            out = os.open(name, _FLAGS, dir_fd=fd)
        except OSError as exc:  # swapped for a link or a pipe since the look
            if exc.errno in (errno.ELOOP, errno.EMLINK, errno.ENXIO):
                st = os.stat(name, dir_fd=fd, follow_symlinks=False)
                raise _not_regular(root, path, st) from None
            raise
    st = os.fstat(out)
    if not stat.S_ISREG(st.st_mode):
        os.close(out)
        raise _not_regular(root, path, st)
    return out


def _open_following(root: Path, path: Path) -> int:
    try:  # no link on the way, the common case
        return _open(root, path)
    except UnsafePath:
        real_root = Path(os.path.realpath(root))
        real = Path(os.path.realpath(path))
        if not real.is_relative_to(real_root) or real == real_root:
            shown = _shown(root, path)
            raise UnsafePath(
                f"{shown} in {root} leads outside the project (to {real}): ralph reads "
                "specs, guardrails and handoffs only inside the project",
                f"remove the link ({shown}), or copy what it points to into the project",
            ) from None
        return _open(real_root, real)


def _root_of(path: Path, root: Path | None) -> Path:
    if root is not None:
        return root
    return confined.project_anchor(path) or path.parent


def read(
    path: Path,
    *,
    limit: int,
    root: Path | None = None,
    follow: bool = False,
    truncate: bool = False,
    tail: bool = False,
) -> Read:
    """The bytes of the regular file `path`, reached from `root` (default: the project folder
    above a `.ralph/` path, else the file's own folder) with no link below it (`follow`: links
    that end inside `root`). More than `limit` bytes: TooLarge, or with `truncate` the first
    `limit` bytes (with `tail` the last ones: a log's end). FileNotFoundError when it is not
    there; UnsafePath for a link or anything but a regular file (a pipe is refused at once,
    never waited on)."""
    base = _root_of(path, root)
    fd = _open_following(base, path) if follow else _open(base, path)
    try:
        skipped = max(0, os.fstat(fd).st_size - limit) if tail else 0
        if skipped:
            os.lseek(fd, skipped, os.SEEK_SET)
        chunks: list[bytes] = []
        left = limit + 1  # one byte more tells a file that grew past the bound
        while left > 0:
            chunk = os.read(fd, min(left, 1 << 20))
            if not chunk:
                break
            chunks.append(chunk)
            left -= len(chunk)
    finally:
        os.close(fd)
    data = b"".join(chunks)
    if len(data) <= limit and not skipped:
        return Read(data)
    if truncate or tail:
        return Read(data[-limit:] if tail else data[:limit], truncated=True)
    shown = _shown(base, path)
    raise TooLarge(
        f"{shown} is larger than ralph reads there ({limit:,} bytes)",
        f"make {shown} smaller, or move it away",
    )


def open_file(path: Path, *, root: Path | None = None) -> BinaryIO:
    """The regular file `path` opened for reading with the same refusals as `read` (no link
    below `root`, no pipe or device, never blocking), for a reader that takes its own bounded
    steps through a growing file (`ralph inspect --follow`)."""
    return os.fdopen(_open(_root_of(path, root), path), "rb")


def read_bytes(path: Path, *, limit: int, root: Path | None = None, follow: bool = False) -> bytes:
    """`read(...).data`: the whole file, TooLarge past `limit`."""
    return read(path, limit=limit, root=root, follow=follow).data


def read_text(
    path: Path,
    *,
    limit: int,
    root: Path | None = None,
    follow: bool = False,
    truncate: bool = False,
    missing: str | None = "",
) -> str:
    """The file's text, undecodable bytes replaced; `missing` when it is not there (None:
    FileNotFoundError)."""
    try:
        return read(path, limit=limit, root=root, follow=follow, truncate=truncate).text()
    except FileNotFoundError:
        if missing is None:
            raise
        return missing


def load_json(
    path: Path,
    label: str,
    *,
    limit: int = RECORD_LIMIT,
    root: Path | None = None,
    hint: str | None = None,
) -> Any | None:
    """The strictly parsed JSON of `path`; None when it does not exist. StateError (one line
    naming `label`) when it cannot be read or is not JSON ralph accepts."""
    try:
        raw = read_bytes(path, limit=limit, root=root)
    except FileNotFoundError:
        return None
    except UnsafePath as exc:
        raise StateError(f"{label}: {exc.message}", hint or exc.hint) from None
    except TooLarge as exc:
        raise TooLarge(f"{label}: {exc.message}", hint or exc.hint) from None
    except OSError as exc:
        raise StateError(f"{label}: cannot read ({exc.strerror or exc})", hint) from exc
    return parse_json(raw, label, hint=hint)


def parse_json(raw: bytes | str, label: str, *, hint: str | None = None) -> Any:
    """JSON as ralph accepts it from a file anyone may have written: standard JSON only (no
    NaN, Infinity or -Infinity), at most JSON_DEPTH levels deep. StateError otherwise."""
    try:
        return loads(raw)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        problem = str(exc).splitlines()[0] if str(exc) else "nested too deeply"
    raise StateError(f"{label}: not valid JSON ({problem})", hint)


def loads(raw: bytes | str) -> Any:
    """Strict JSON of one value (a file, a line of a log): ValueError (or RecursionError, or
    UnicodeDecodeError, both ValueErrors but the first) when ralph does not accept it."""
    try:
        value = json.loads(raw, parse_constant=_no_constant)
    except RecursionError:
        raise ValueError(f"nested deeper than {JSON_DEPTH} levels") from None
    if _too_deep(raw.encode("utf-8", errors="replace") if isinstance(raw, str) else raw):
        raise ValueError(f"nested deeper than {JSON_DEPTH} levels")
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


_STRING = re.compile(rb'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(rb"[^\[\]{}]+")
_PAIR = re.compile(rb"\[\]|\{\}")


def _too_deep(data: bytes) -> bool:
    """Whether well-formed JSON nests deeper than JSON_DEPTH levels. Each pass removes the
    innermost pairs of brackets, so the passes count the depth, at the regular-expression
    engine's speed (its strings are well formed: no scan runs away). A value with fewer
    brackets than the bound is not even looked at."""
    if data.count(b"[") + data.count(b"{") <= JSON_DEPTH:
        return False
    brackets = _NOT_BRACKET.sub(b"", _STRING.sub(b"", data))
    for _ in range(JSON_DEPTH):
        brackets = _PAIR.sub(b"", brackets)
        if not brackets:
            return False
    return True
