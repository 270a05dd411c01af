"""Tests of ralph.process against real fake agents: output, limits, and no process left behind."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ralph.process.request import OPEN, ProcessRequest, StreamName
from ralph.process.runner import run_process
from ralph.process.spawn import StartError

FAKES = Path(__file__).resolve().parents[1] / "fakes"


class Recorder:
    """An on_output that keeps every chunk, in order, per stream."""

    def __init__(self) -> None:
        self.chunks: list[tuple[StreamName, bytes]] = []

    def __call__(self, name: StreamName, chunk: bytes) -> None:
        self.chunks.append((name, chunk))

    def joined(self, name: StreamName) -> bytes:
        return b"".join(chunk for stream, chunk in self.chunks if stream == name)


def fake(name: str, *args: str) -> tuple[str, ...]:
    return (sys.executable, str(FAKES / f"{name}.py"), *args)


def request(argv: tuple[str, ...], cwd: Path, **kwargs: object) -> ProcessRequest:
    env = {**os.environ, "RALPH_FAKE_MARK": "from-ralph"}
    options = {"confined": OPEN, **kwargs}  # unconfined unless a test says otherwise
    return ProcessRequest(argv=argv, cwd=cwd, env=env, **options)  # type: ignore[arg-type]


def test_missing_stdin_file_raises_start_error(tmp_path: Path) -> None:
    with pytest.raises(StartError) as caught:
        run_process(request(fake("cat"), tmp_path, stdin_path=tmp_path / "nope"), Recorder())
    assert caught.value.stdin == tmp_path / "nope"
    assert caught.value.reason.startswith(f"cannot read {tmp_path / 'nope'}: ")
