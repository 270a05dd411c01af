"""process/orphans.py and process/started.py: an orphan is told from ralph's own child by
ralph's record of what it started and by the session it is in, never by what the child shows
of itself; a mark it carries only puts its stop off while the rotation it names runs."""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator

import psutil
import pytest

from ralph.process import started
from ralph.process.orphans import MARKER, Adopted, sweep

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
    watch.begin(os.getpid())  # a session no orphan here is in
    yield watch
    watch.end()


@pytest.fixture
def other() -> Iterator[Adopted]:
    """Another rotation running meanwhile (another lane's)."""
    watch = Adopted("other-rotation")
    yield watch
    watch.end()


def orphan(env: dict[str, str]) -> subprocess.Popen[bytes]:
    """A child ralph did not start, in a session of its own: what an agent's orphan is once
    re-parented to ralph."""
    proc = subprocess.Popen(["sleep", "60"], env=env, start_new_session=True)
    # Popen returns once exec began: until it has ended, the process shows no environment
    # yet, so what it will show is waited for (an event, bounded)
    deadline = time.monotonic() + 30
    while not psutil.Process(proc.pid).cmdline() and time.monotonic() < deadline:
        time.sleep(0.001)
    return proc


def _found(watch: Adopted) -> set[int]:
    return {p.pid for p in watch.find()}


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.kill()
    proc.wait()


def test_a_child_ralph_started_is_never_taken_for_an_orphan(adopted: Adopted) -> None:
    # a lane's git, another lane's check: started while this agent runs, with no mark at all
    mine = started.popen(["sleep", "60"], env=QUIET)
    # the control: a child nothing recorded (an orphan re-parented to ralph) is found
    left = orphan(QUIET)
    try:
        assert _found(adopted) == {left.pid}
    finally:
        _stop(mine)
        _stop(left)


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
    if sys.platform == "win32":  # skipped there (pytestmark): no fork, no sessions
        return
    read, write = os.pipe()
    ready, said = os.pipe()
    pid = os.fork()
    if pid == 0:  # the orphan, in a session of its own as an agent's is: waits until told
        os.close(write)
        os.close(ready)
        os.setsid()
        os.write(said, b"1")  # in its session now (an event, not a guess)
        os.close(said)
        if forged:
            os.dup2(read, 0)
            os.execvpe("sh", ["sh", "-c", "read x"], {**QUIET, **forged})
        os.read(read, 1)
        os._exit(0)
    os.close(read)
    os.close(said)
    assert os.read(ready, 1) == b"1"
    os.close(ready)
    try:
        assert pid in _found(adopted)
    finally:
        os.write(write, b"x\n")
        os.close(write)
        os.waitpid(pid, 0)


def test_a_forged_mark_spares_no_orphan(adopted: Adopted, other: Adopted) -> None:
    """The attack: an orphan that carries a mark of its own making (no rotation's) was stopped
    by no rotation and outlived the run. It is this rotation's now, as one without a mark."""
    forged = orphan({**QUIET, MARKER: "0123456789abcdef0123456789abcdef"})
    ended = orphan({**QUIET, MARKER: "a-rotation-that-ended"})
    # the honest control: an orphan of another rotation running now, by its mark, is that
    # rotation's to stop when it ends, not this one's
    honest = orphan({**QUIET, MARKER: "other-rotation"})
    other.begin(os.getppid())  # its own session: none of these is in it
    try:
        assert _found(adopted) == {forged.pid, ended.pid}
        assert honest.pid in _found(other)
        other.end()  # once that rotation has ended, its mark spares nothing
        assert honest.pid in _found(adopted)
    finally:
        for proc in (forged, ended, honest):
            _stop(proc)


def test_the_session_an_orphan_is_in_says_whose_it_is(adopted: Adopted, other: Adopted) -> None:
    """No process can join a session it is not in: an orphan in another running rotation's
    session is that rotation's, whatever mark it shows (this rotation's own included)."""
    theirs = orphan({**QUIET, MARKER: "this-rotation"})
    other.begin(theirs.pid)  # the session its process made, as an agent's is
    host = subprocess.Popen(["sleep", "60"], env=QUIET)  # the host's child, ralph's session
    try:
        assert theirs.pid not in _found(adopted)
        assert theirs.pid in _found(other)
        assert host.pid not in _found(adopted) | _found(other)  # never an agent's orphan
    finally:
        _stop(theirs)
        _stop(host)


def test_the_runs_end_stops_every_orphan_left(other: Adopted) -> None:
    """Whatever an orphan carries (the mark of a rotation still listed, none at all), none
    outlives the run that adopted it; the host's own child is left alone."""
    listed = orphan({**QUIET, MARKER: "other-rotation"})
    bare = orphan(QUIET)
    host = subprocess.Popen(["sleep", "60"], env=QUIET)
    other.end()
    try:
        assert sweep(wait=5.0) >= 2
        assert listed.poll() is not None and bare.poll() is not None  # reaped by the sweep
        assert host.poll() is None
    finally:
        for proc in (listed, bare, host):
            if proc.poll() is None:
                _stop(proc)
