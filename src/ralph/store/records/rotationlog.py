"""One rotation's output on disk: raw in `history/<slug>/NNN.log`, readable in `current.log`.

The raw log ralph quotes later (`ralph history`, the report's excerpts) is its record in the
private store (`<store>/history/<slug>/NNN.log`); `.ralph/history/<slug>/NNN.log` gets the same
bytes as a copy for people and agents, and is never read back."""

from __future__ import annotations

import os
import weakref
from pathlib import Path
from typing import BinaryIO

from ralph.rules.text.printable import clean_text, printable
from ralph.store.disk import confined

CURRENT_LOG_CAP = 50 << 20  # current.log is a live view; the history log keeps everything


def _open(path: Path, flags: int) -> BinaryIO:
    """A log of `.ralph/`, opened without following a link (store/disk/confined.py)."""
    root = confined.project_anchor(path)
    if root is None:  # the store's: ralph's own folder
        path.parent.mkdir(parents=True, exist_ok=True)
        root = path.parent
    try:
        fd = confined.open_fd(root, path, os.O_WRONLY | os.O_CREAT | flags, create_dirs=True)
    except FileExistsError:
        raise
    except OSError as exc:
        raise confined.explain(exc, path) from exc
    return os.fdopen(fd, "wb")


def _open_new(path: Path) -> tuple[Path, BinaryIO]:
    """Create `path`, or `NNN-2.log`, `NNN-3.log`...: numbers restart after `ralph reset`,
    and an earlier run's log is never overwritten."""
    candidate = path
    n = 1
    while True:
        try:
            return candidate, _open(candidate, os.O_EXCL)
        except FileExistsError:
            n += 1
            candidate = path.with_name(f"{path.stem}-{n}{path.suffix}")


def _close_all(*files: BinaryIO) -> None:
    for f in files:
        f.close()


class RotationLog:
    """One rotation's output: raw in its history log, readable (the adapter's rendering, one line
    per assistant message or tool call) in current.log, capped."""

    def __init__(self, history_path: Path, current_path: Path, header: str, records: Path) -> None:
        """`history_path` is the copy's place in `.ralph/history/`; `records` the store's
        folder of records, where the log's number is taken (`NNN-2.log` after a reset)."""
        record, self._record = _open_new(records / history_path.parent.name / history_path.name)
        self.record = record
        self.path = history_path.with_name(record.name)
        opened: list[BinaryIO] = [self._record]
        try:
            self._copy = _open(self.path, os.O_TRUNC)
            opened.append(self._copy)
            self._current: BinaryIO = _open(current_path, os.O_TRUNC)  # one rotation at a time
        except BaseException:
            _close_all(*opened)
            raise
        self._current_written = 0
        # A rotation cut short by an error (a write refused mid-rotation) never reaches close():
        # its files are closed when the log is dropped, not left to the garbage collector.
        weakref.finalize(self, _close_all, self._record, self._copy, self._current)
        data = printable(header).encode("utf-8", "replace") + b"\n"  # it names the spec
        self._write_raw(data)
        self._write_current(data)
        self._current.flush()  # a follower sees the new rotation's header at once

    def _write_current(self, data: bytes) -> None:
        if self._current_written < CURRENT_LOG_CAP:
            room = CURRENT_LOG_CAP - self._current_written
            self._current.write(data[:room])
            self._current_written += min(len(data), room)
            if self._current_written >= CURRENT_LOG_CAP:
                self._current.write(b"\n[current.log capped; the history log has the rest]\n")

    def _write_raw(self, data: bytes) -> None:
        self._record.write(data)
        self._copy.write(data)

    def chunk(self, stream: str, data: bytes) -> None:
        """Raw output, exactly as the agent printed it: the history log and its copy."""
        self._write_raw(data)

    def lines(self, stream: str, lines: tuple[str, ...]) -> None:
        """The readable rendering: current.log."""
        if not lines:
            return
        text = clean_text("\n".join(lines))  # no escape sequence reaches a reader's terminal
        self._write_current((text + "\n").encode("utf-8", "replace"))
        # current.log is read live (`ralph inspect --follow`): each batch reaches it at once.
        self._current.flush()

    def close(self, footer: str) -> None:
        data = b"\n" + footer.encode() + b"\n"
        self._write_raw(data)
        self._write_current(data)
        for f in (self._record, self._copy, self._current):
            f.flush()
            f.close()
