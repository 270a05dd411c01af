"""process/request.py: a request refuses what no process can run under, always says where it
starts, and a result is ok only when the process ended on its own with 0."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from ralph.process.request import OPEN, ProcessRequest, ProcessResult


def test_a_request_without_a_program_or_with_negative_limits_is_refused() -> None:
    with pytest.raises(ValueError, match="argv is empty"):
        ProcessRequest(argv=(), cwd=Path(), env={}, confined=OPEN)
    with pytest.raises(ValueError, match="kill_grace"):
        ProcessRequest(argv=("true",), cwd=Path(), env={}, kill_grace=-1, confined=OPEN)
    with pytest.raises(ValueError, match="tail_bytes"):
        ProcessRequest(argv=("true",), cwd=Path(), env={}, tail_bytes=-1, confined=OPEN)
    # the control: zero is a limit like any other
    ProcessRequest(argv=("true",), cwd=Path(), env={}, kill_grace=0, tail_bytes=0, confined=OPEN)


RESULT = ProcessResult(0, b"", b"", 0, 0, 100.0, 105.0, False, False, False)


def test_ok_is_exit_0_of_a_process_ralph_did_not_stop() -> None:
    assert RESULT.ok
    assert not replace(RESULT, exit_code=1).ok
    assert not replace(RESULT, exit_code=None, timed_out=True).ok
    assert not replace(RESULT, idle_timed_out=True).ok
    assert not replace(RESULT, interrupted=True).ok


def test_elapsed_is_the_monotonic_duration_when_there_is_one() -> None:
    assert RESULT.elapsed == 5.0  # the wall clock's, failing a measured one
    assert replace(RESULT, duration=1.5).elapsed == 1.5
    assert replace(RESULT, ended=90.0).elapsed == 0.0  # a clock stepped back: never negative
