"""`ralph inspect --follow`: the live run's current.log as it grows, like `tail -f`."""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from pathlib import Path
from typing import TextIO

from ralph.errors import NoLiveRun
from ralph.store.disk import reader
from ralph.store.disk.workspace import Workspace
from ralph.store.live.liverun import is_live

FOLLOW_POLL = 0.2  # seconds between looks at current.log


def follow(
    root: Path,
    out: TextIO,
    *,
    poll: float = FOLLOW_POLL,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Print the live run's current.log as it grows, like `tail -f`, rotation after rotation;
    return once the run has ended (after printing what it wrote last)."""
    from ralph.ui.text import clean_line

    ws = Workspace(root)
    ws.check()
    if not is_live(ws.dir):
        raise NoLiveRun(root)
    path = ws.current_log
    header: bytes | None = None  # first line of the rotation being shown
    offset = 0
    partial = b""

    def emit(data: bytes, *, final: bool = False) -> None:
        nonlocal partial
        lines = (partial + data).split(b"\n")
        partial = b"" if final else lines.pop()
        for raw in lines:
            if final and not raw:
                continue
            out.write(clean_line(raw.decode("utf-8", "replace")) + "\n")
        out.flush()

    while True:
        live = is_live(ws.dir)  # looked at before reading: the last bytes are read after it ends
        try:
            with reader.open_file(path) as f:  # a pipe planted there is refused, not waited on
                # Each rotation rewrites current.log from its header line ("# ralph rotation
                # N ... started=..."), unique per rotation: a new header means start over.
                head = f.readline(4096)
                if head.endswith(b"\n"):
                    size = f.seek(0, os.SEEK_END)
                    if head != header or size < offset:
                        if partial:
                            emit(b"", final=True)
                        header, offset = head, 0
                    if size > offset:
                        f.seek(offset)
                        data = f.read(min(size - offset, 1 << 22))  # a bounded step
                        offset += len(data)
                        emit(data)
        except FileNotFoundError:
            pass
        if not live:
            if partial:
                emit(b"", final=True)
            out.write("-- the run has ended\n")
            out.flush()
            return
        sleep(poll)
