"""process/orphans.py and process/started.py: an orphan is told from ralph's own child by
ralph's record of what it started, never by what the child shows of itself."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator

import pytest

from ralph.process import started
from ralph.process.orphans import MARKER, Adopted

pytestmark = [
    pytest.mark.skipif(
        not sys.platform.startswith("linux"), reason="the child subreaper is Linux's"
    ),
    pytest.mark.slow,  # real processes
]
QUIET = {k: v for k, v in os.environ.items() if k != MARKER}  # no agent's mark: a hiding orphan


@pytest.fixture
def adopted() -> Iterator[Adopted]:
    watch = Adopted("this-rotation")
    assert watch.active
    yield watch


def _found(watch: Adopted) -> set[int]:
    return {p.pid for p in watch.find()}


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.kill()
    proc.wait()


def test_a_child_ralph_started_is_never_taken_for_an_orphan(adopted: Adopted) -> None:
    # a lane's git, another lane's check: started while this agent runs, with no mark at all
    mine = started.popen(["sleep", "60"], env=QUIET)
    # the control: a child nothing recorded (an orphan re-parented to ralph) is found
    other = subprocess.Popen(["sleep", "60"], env=QUIET)
    try:
        assert _found(adopted) == {other.pid}
    finally:
        _stop(mine)
        _stop(other)


@pytest.mark.parametrize(
    "forged",
    [
        pytest.param({}, id="command-line-and-environment-of-ralph"),
        pytest.param({"RALPH_HELPER": "1"}, id="an-older-helper-mark"),
    ],
)
def test_an_orphan_that_looks_like_ralph_is_still_an_orphan(
    adopted: Adopted, forged: dict[str, str]
) -> None:
    # A fork of ralph's own image shows ralph's command line and very environment (an orphan
    # can copy both from /proc); the older rule took that for a child ralph was starting.
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:  # the orphan: waits until told to go
        os.close(write)
        if forged:
            os.dup2(read, 0)
            os.execvpe("sh", ["sh", "-c", "read x"], {**QUIET, **forged})
        os.read(read, 1)
        os._exit(0)
    os.close(read)
    try:
        assert pid in _found(adopted)
    finally:
        os.write(write, b"x\n")
        os.close(write)
        os.waitpid(pid, 0)
