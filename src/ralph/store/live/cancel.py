"""`ralph cancel`: a request file another process writes and the live run watches.

A file rather than a signal: it works the same on every platform, names the run it is meant
for (a stale request never stops a later run), and says how to stop (after the current
rotation, or now). The run polls it from a small thread, so `--now` reaches an agent that is
busy, through the `cancel` event `ralph.process.runner.run_process` already honours.
"""

from __future__ import annotations

import contextlib
import os
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from types import TracebackType
from typing import Literal

from ralph.errors import RalphError
from ralph.store.disk.files import load_json, remove_file, write_json_atomic

CANCEL_FILE = "cancel.json"
POLL_SECONDS = 0.2
CancelMode = Literal["after", "now"]


def request_cancel(state_dir: Path, pid: int, mode: CancelMode) -> None:
    """Ask the run with `pid` to stop; a later `now` upgrades an earlier `after`."""
    write_json_atomic(
        state_dir / CANCEL_FILE,
        {"pid": pid, "mode": mode, "requested_at": time.time(), "by_pid": os.getpid()},
        durable=False,
    )


def read_request(state_dir: Path, pid: int) -> CancelMode | None:
    """The mode asked of the run `pid`, or None (no request, or one meant for another run)."""
    try:
        data = load_json(state_dir / CANCEL_FILE, CANCEL_FILE)
    except Exception:  # half-written or damaged: no request yet
        return None
    if not isinstance(data, dict) or data.get("pid") != pid:
        return None
    mode = data.get("mode")
    return mode if mode in ("after", "now") else None


class CancelWatch:
    """Held by a run: notices a cancel request for this process within POLL_SECONDS."""

    def __init__(self, state_dir: Path, pid: int | None = None) -> None:
        self.path = state_dir / CANCEL_FILE
        self.state_dir = state_dir
        self.pid = os.getpid() if pid is None else pid
        self.now = threading.Event()  # set on `--now`: stops the running agent
        self.mode: CancelMode | None = None
        self._stop = threading.Event()
        self._lock = threading.Lock()
        self._linked: list[threading.Event] = []
        self._thread: threading.Thread | None = None
        # told once when a request arrives (from the watching thread), so a display can say
        # the run will stop before it does
        self.on_request: Callable[[CancelMode], None] | None = None

    @property
    def requested(self) -> bool:
        self.poll()
        return self.mode is not None

    def poll(self) -> None:
        if self.mode == "now" or not self.path.exists():
            return
        mode = read_request(self.state_dir, self.pid)
        if mode is not None and mode != self.mode:
            self.mode = mode
            if self.on_request is not None:
                self.on_request(mode)
            if mode == "now":
                with self._lock:
                    self.now.set()
                    for event in self._linked:
                        event.set()

    @contextlib.contextmanager
    def linked(self) -> Iterator[threading.Event]:
        """An event of its own that `--now` sets too: for work (the DONE checks) that sets
        its event for reasons of its own, which must not read as a cancel of the run."""
        event = threading.Event()
        with self._lock:
            self._linked.append(event)
            if self.now.is_set():
                event.set()
        try:
            yield event
        finally:
            with self._lock:
                self._linked.remove(event)

    def _watch(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            self.poll()

    def __enter__(self) -> CancelWatch:
        # A request left by an earlier run (another pid) is stale: remove it. One for this
        # run (written once run.json named it) is kept and seen at the first poll.
        if read_request(self.state_dir, self.pid) is None:
            with contextlib.suppress(OSError, RalphError):  # a link there: left alone
                remove_file(self.path)
        self._thread = threading.Thread(target=self._watch, name="ralph-cancel", daemon=True)
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if read_request(self.state_dir, self.pid) is not None:
            with contextlib.suppress(OSError, RalphError):  # a link there: left alone
                remove_file(self.path)
