"""process/pipes.py: an agent's two streams read without blocking on either, and the tail of
each kept in bounded memory; both readers (selectors; threads, Windows') met on real pipes.

Real agents' output through them is tests/process/test_runner.py's."""

from __future__ import annotations

import os
from collections.abc import Iterator
from typing import IO

import pytest

from ralph.process.pipes import Pipes, SelectorPipes, Tail, ThreadPipes
from ralph.process.request import StreamName


def test_a_tail_keeps_the_last_bytes_and_counts_them_all() -> None:
    tail = Tail(10)
    for chunk in (b"0123456789", b"abcdef", b"", b"XYZ"):
        tail.add(chunk)
    assert tail.tail() == (b"0123456789abcdefXYZ")[-10:]
    assert tail.total == 19


def test_a_flood_keeps_memory_under_the_limit_and_one_chunk() -> None:
    tail = Tail(100)
    for _ in range(10_000):
        tail.add(b"x" * 64)
    assert tail.total == 640_000 and len(tail.tail()) == 100
    assert sum(len(c) for c in tail._chunks) < 100 + 64


def test_a_tail_of_nothing_keeps_nothing_but_counts() -> None:
    tail = Tail(0)
    tail.add(b"abc")
    assert tail.tail() == b"" and tail.total == 3


@pytest.fixture(params=[SelectorPipes, ThreadPipes], ids=["selectors", "threads"])
def pipes(request: pytest.FixtureRequest) -> Iterator[tuple[Pipes, int, int]]:
    if request.param is SelectorPipes and os.name == "nt":
        pytest.skip("selectors cannot wait on pipes on Windows")
    out_r, out_w = os.pipe()
    err_r, err_w = os.pipe()
    streams: dict[StreamName, IO[bytes]] = {
        "stdout": os.fdopen(out_r, "rb", buffering=0),
        "stderr": os.fdopen(err_r, "rb", buffering=0),
    }
    reader = request.param(streams)
    yield reader, out_w, err_w
    reader.close()
    for stream in streams.values():
        stream.close()


def _until(reader: Pipes, wanted: int) -> list[tuple[StreamName, bytes]]:
    got: list[tuple[StreamName, bytes]] = []
    for _ in range(1000):  # 0.5 s each at most: a bound, not a guess at how long it takes
        got += reader.read(0.5)
        if len(got) >= wanted:
            break
    return got


def test_one_silent_stream_never_holds_the_other_back(pipes: tuple[Pipes, int, int]) -> None:
    reader, out_w, err_w = pipes
    os.write(err_w, b"on stderr")  # stdout says nothing and stays open
    assert _until(reader, 1) == [("stderr", b"on stderr")]
    os.close(out_w)
    os.close(err_w)
    ended = _until(reader, 2)
    assert sorted(ended) == [("stderr", b""), ("stdout", b"")]  # each end said once
    assert not reader.open
    assert reader.read(0) == []
