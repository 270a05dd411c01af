"""Reading an agent's stdout and stderr without blocking on either, keeping a bounded tail."""

from __future__ import annotations

import os
import queue
import selectors
import sys
import threading
import time
from collections import deque
from collections.abc import Mapping
from typing import IO, TypeAlias

from ralph.process.request import StreamName

_CHUNK = 64 * 1024


class Tail:
    """The last `limit` bytes of a stream and the total seen, in bounded memory."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.total = 0
        self._chunks: deque[bytes] = deque()
        self._kept = 0

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self._chunks.append(chunk)
        self._kept += len(chunk)
        # Drop whole chunks that lie entirely before the last `limit` bytes, so memory
        # stays below limit + one chunk however much the agent prints.
        while self._chunks and self._kept - len(self._chunks[0]) >= self.limit:
            self._kept -= len(self._chunks.popleft())

    def tail(self) -> bytes:
        if self.limit == 0:
            return b""
        return b"".join(self._chunks)[-self.limit :]


class SelectorPipes:
    """Reads whichever pipe has data, never blocking on one while the other fills up."""

    def __init__(self, streams: Mapping[StreamName, IO[bytes]]) -> None:
        self._selector = selectors.DefaultSelector()
        for name, stream in streams.items():
            self._selector.register(stream.fileno(), selectors.EVENT_READ, name)

    @property
    def open(self) -> bool:
        return bool(self._selector.get_map())

    def read(self, timeout: float) -> list[tuple[StreamName, bytes]]:
        """Chunks that arrived within `timeout`; an empty chunk means that stream ended."""
        if not self.open:
            time.sleep(max(timeout, 0.0))
            return []
        got: list[tuple[StreamName, bytes]] = []
        for key, _ in self._selector.select(max(timeout, 0.0)):
            fd = key.fd
            try:
                chunk = os.read(fd, _CHUNK)
            except OSError:
                chunk = b""
            if not chunk:
                self._selector.unregister(fd)
            got.append((key.data, chunk))
        return got

    def close(self) -> None:
        self._selector.close()


class ThreadPipes:
    """Windows fallback: selectors cannot wait on pipes there, so one thread per pipe."""

    def __init__(self, streams: Mapping[StreamName, IO[bytes]]) -> None:
        # Bounded, so a flood blocks the reader threads instead of filling memory.
        self._queue: queue.Queue[tuple[StreamName, bytes]] = queue.Queue(maxsize=16)
        self._open = set(streams)
        self._closed = threading.Event()
        for name, stream in streams.items():
            threading.Thread(target=self._pump, args=(name, stream), daemon=True).start()

    def _pump(self, name: StreamName, stream: IO[bytes]) -> None:
        while True:
            try:
                chunk = os.read(stream.fileno(), _CHUNK)
            except (OSError, ValueError):
                chunk = b""
            # Give up once closed: nobody empties a full queue then, and a blocked put
            # would keep this thread alive for good.
            while not self._closed.is_set():
                try:
                    self._queue.put((name, chunk), timeout=0.1)
                    break
                except queue.Full:
                    continue
            if not chunk or self._closed.is_set():
                return

    @property
    def open(self) -> bool:
        return bool(self._open)

    def read(self, timeout: float) -> list[tuple[StreamName, bytes]]:
        if not self.open:
            time.sleep(max(timeout, 0.0))
            return []
        got: list[tuple[StreamName, bytes]] = []
        try:
            got.append(self._queue.get(timeout=max(timeout, 0.0)))
            while len(got) < 16:
                got.append(self._queue.get_nowait())
        except queue.Empty:
            pass
        for name, chunk in got:
            if not chunk:
                self._open.discard(name)
        return got

    def close(self) -> None:
        self._open.clear()
        self._closed.set()


Pipes: TypeAlias = SelectorPipes | ThreadPipes


def open_pipes(streams: Mapping[StreamName, IO[bytes]]) -> Pipes:
    """The reader this platform supports."""
    return ThreadPipes(streams) if sys.platform == "win32" else SelectorPipes(streams)
