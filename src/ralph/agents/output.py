"""Reading an agent's output as it arrives: chunks into bounded lines, lines into what is shown.

`LineSplitter` cuts raw chunks into lines of bounded length; an `OutputParser` turns them into
the lines the displays show and, at the end, what the rotation produced.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ralph.agents.result import Outcome
from ralph.process.request import ProcessResult, StreamName

MAX_LINE = 2000  # characters of one output line a display gets; the history log keeps all


class OutputParser:
    """Reads an agent's output line by line as it arrives, in bounded memory.

    `feed` gets complete lines (decoded, at most MAX_EVENT characters) and returns the readable
    lines displays and current.log show; `finish` says what the rotation produced. This base
    class is the plain-text parser of custom commands: lines are shown as they are, and the
    signal is looked for in the output itself.
    """

    def feed(self, stream: StreamName, lines: Sequence[str]) -> tuple[str, ...]:
        # LineSplitter's lines carry no trailing "\r": when none is too long (the usual
        # case), they are shown as they are, without a Python call per line.
        if max(map(len, lines), default=0) <= MAX_LINE:
            return tuple(lines)
        return tuple(_bound(line) for line in lines)

    def finish(self, process: ProcessResult) -> Outcome:
        return Outcome()


class LineSplitter:
    """Turns raw chunks into decoded lines of at most `max_line` bytes (memory stays bounded).

    One call per chunk, not per line: an agent printing millions of short lines must not be
    slowed down by ralph reading them. A longer line is cut: its start is kept (marked " …")
    and the rest is skipped up to the next newline.
    """

    def __init__(
        self, emit: Callable[[StreamName, tuple[str, ...]], None], max_line: int = MAX_LINE * 4
    ) -> None:
        self._emit = emit
        self._max = max_line
        # Pieces of each stream's unfinished line: a list, so a long line costs one join.
        self._partial: dict[StreamName, list[bytes]] = {"stdout": [], "stderr": []}
        self._size: dict[StreamName, int] = {"stdout": 0, "stderr": 0}
        self._skipping: dict[StreamName, bool] = {"stdout": False, "stderr": False}

    def feed(self, stream: StreamName, chunk: bytes) -> None:
        lines: list[str] = []
        end = chunk.rfind(b"\n")
        if end >= 0:
            data: bytes | None = chunk[:end]
            if self._skipping[stream]:
                # Up to the first newline, the chunk is the rest of the line being skipped.
                first = chunk.find(b"\n")
                data = chunk[first + 1 : end] if first < end else None
                self._skipping[stream] = False
            else:
                data = b"".join([*self._partial[stream], chunk[:end]])
            if data is not None:
                # A newline byte never occurs inside a multi-byte UTF-8 character: decoding
                # the complete lines in one go is safe, and much faster than line by line.
                text = data.decode("utf-8", "replace")
                lines = text.split("\n")
                # Per-line work only when some line needs it: millions of short lines stay
                # cheap to read.
                if "\r" in text or max(map(len, lines)) > self._max:
                    lines = [self._cut(line) for line in lines]
            rest = chunk[end + 1 :]
            self._partial[stream] = [rest] if rest else []
            self._size[stream] = len(rest)
        elif not self._skipping[stream]:
            self._partial[stream].append(chunk)
            self._size[stream] += len(chunk)
        if self._size[stream] > self._max:
            head = b"".join(self._partial[stream])[: self._max]
            lines.append(head.decode("utf-8", "replace") + " …")
            self._partial[stream], self._size[stream] = [], 0
            self._skipping[stream] = True
        if lines:
            self._emit(stream, tuple(lines))

    def _cut(self, line: str) -> str:
        line = line.rstrip("\r")
        return line if len(line) <= self._max else line[: self._max] + " …"

    def close(self) -> None:
        for stream, parts in self._partial.items():
            if parts and not self._skipping[stream]:
                self._emit(stream, (self._cut(b"".join(parts).decode("utf-8", "replace")),))
        self._partial = {"stdout": [], "stderr": []}
        self._size = {"stdout": 0, "stderr": 0}


def _bound(text: str) -> str:
    text = text.rstrip("\r")
    return text if len(text) <= MAX_LINE else text[:MAX_LINE] + " …"


def bound_line(text: str) -> str:
    """One display line: at most MAX_LINE characters, no line breaks."""
    return _bound(" ".join(text.split()) if "\n" in text or "\r" in text else text)
