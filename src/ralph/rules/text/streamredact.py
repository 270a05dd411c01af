"""A process's output redacted as it streams (rules/text/redact.py says which values are secret).

A secret can arrive cut in two by a chunk boundary, and a PEM private key spans lines: what the
stream may let out so far is decided here, a line at a time, per stream.
"""

from __future__ import annotations

import re

from ralph.rules.text.redact import PEM_BEGIN, PEM_END, REDACTED, Redactor


class StreamRedactor:
    """Redacts a process's output as it streams, a line at a time, per stream.

    A secret can arrive cut in two by a chunk boundary: the unfinished end of a line is held
    back until its newline arrives (or the stream ends). A line longer than `limit` is let out
    early, all but its last `hold` bytes, never cutting through a secret it can see.
    """

    def __init__(self, redactor: Redactor, limit: int = 64 << 10) -> None:
        self.redactor = redactor
        self.limit = max(limit, 2 * redactor.hold)
        self._held: dict[str, list[bytes]] = {}
        self._size: dict[str, int] = {}
        self._in_block: set[str] = set()  # streams inside a PEM private key block

    def feed(self, stream: str, chunk: bytes) -> bytes:
        """What may be written of the output so far, redacted; b"" while a line is unfinished."""
        end = chunk.rfind(b"\n") + 1
        held = self._held.setdefault(stream, [])
        if end:
            data = b"".join([*held, chunk[:end]]) if held else chunk[:end]
            rest = chunk[end:]
            self._held[stream] = [rest] if rest else []
            self._size[stream] = len(rest)
            return self._lines(stream, data)
        held.append(chunk)
        self._size[stream] = self._size.get(stream, 0) + len(chunk)
        if self._size[stream] <= self.limit:
            return b""
        data = b"".join(held)
        cut = self.redactor.safe_cut(data, len(data) - self.redactor.hold)
        self._held[stream] = [data[cut:]]
        self._size[stream] = len(data) - cut
        return self._lines(stream, data[:cut])

    def _lines(self, stream: str, data: bytes) -> bytes:
        """`data` redacted. A PEM block is redacted from its BEGIN line on; the lines after it
        that arrive later are dropped up to its END line, so no line of the key is written."""
        if stream in self._in_block:
            end = PEM_END.search(data)
            if end is None:
                return b""
            self._in_block.discard(stream)
            data = data[end.end() :]
        if _open_block(data):
            self._in_block.add(stream)
        return self.redactor.raw(data)

    def flush(self, stream: str) -> bytes:
        """The rest of a stream that ended without a newline, redacted."""
        held = self._held.pop(stream, [])
        self._size.pop(stream, None)
        out = self._lines(stream, b"".join(held)) if held else b""
        self._in_block.discard(stream)
        return out

    def tail(self, data: bytes, total: int) -> bytes:
        """The kept end of a stream, redacted. When it does not start at the stream's start,
        its start may hold the end of a secret too short to see: it is dropped up to the first
        line break, or `hold` bytes of it in a line longer than that (a wrapper printing one
        JSON object per run: the signal at its end must stay). So is the rest of a PEM block
        whose BEGIN line was cut off."""
        if total > len(data):
            first = data.find(b"\n", 0, self.redactor.hold)
            data = data[first + 1 if first >= 0 else self.redactor.hold :]
            end = PEM_END.search(data)
            if end is not None and not _BEGIN.search(data, 0, end.start()):
                data = REDACTED.encode() + data[end.end() :]
        return self.redactor.raw(data)


_BEGIN = re.compile(PEM_BEGIN)


def _open_block(data: bytes) -> bool:
    """Whether `data` ends inside a PEM private key block (its END line not seen yet)."""
    if b"-----BEGIN " not in data:
        return False
    begins = list(_BEGIN.finditer(data))
    return bool(begins) and PEM_END.search(data, begins[-1].end()) is None
