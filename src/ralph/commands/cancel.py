"""`ralph cancel`: ask the live run to stop after the current rotation (or now); it exits 130."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from ralph.errors import NoLiveRun
from ralph.store.disk.workspace import Workspace
from ralph.store.live.liverun import is_live, read_run


def cancel(root: Path, *, now: bool, wait: bool) -> None:
    """Each step printed as it happens (with --wait, the second one comes later)."""
    for line in cancel_run(root, now=now, wait=wait):
        print(line, flush=True)


def cancel_run(root: Path, *, now: bool, wait: bool) -> Iterator[str]:
    from ralph.store.live.cancel import request_cancel

    ws = Workspace(root)
    ws.check()
    live = read_run(ws.dir)
    if live is None or not live.pid:
        raise NoLiveRun(root)
    request_cancel(ws.dir, live.pid, "now" if now else "after")
    what = "stops its agent now" if now else "stops after the current rotation"
    yield f"cancel requested: run pid {live.pid} {what} (it exits 130)"
    if wait:
        while is_live(ws.dir):
            time.sleep(0.1)
        yield "the run has stopped"
