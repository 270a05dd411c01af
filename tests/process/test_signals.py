"""A hold keeps Ctrl-C and the stop signals that arrive while a process cannot be stopped yet
(just started, no supervisor) and acts on them when released; the agent never outlives it."""

from __future__ import annotations

import os
import shutil
import signal
import sys
import threading
from pathlib import Path

import psutil
import pytest

from ralph.process.request import OPEN, ProcessRequest
from ralph.process.runner import run_process
from ralph.process.signals import Hold

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals to oneself")


def test_a_signal_during_a_hold_is_noted_then_raised_on_release() -> None:
    hold = Hold()
    os.kill(os.getpid(), signal.SIGINT)  # handled at once: noted, not raised
    assert hold.pending == [signal.SIGINT]
    with pytest.raises(KeyboardInterrupt):
        hold.release()
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_release_without_acting_drops_nothing_but_raises_nothing() -> None:
    hold = Hold()
    os.kill(os.getpid(), signal.SIGTERM)
    hold.release(act=False)
    assert hold.pending == [signal.SIGTERM]
    assert signal.getsignal(signal.SIGTERM) is signal.SIG_DFL


def test_an_inner_hold_changes_nothing_and_the_outer_one_acts() -> None:
    outer = Hold()
    inner = Hold()
    os.kill(os.getpid(), signal.SIGINT)
    inner.release()  # nothing raised: the outer hold has it
    with pytest.raises(KeyboardInterrupt):
        outer.release()


def test_outside_the_main_thread_a_hold_does_nothing() -> None:
    seen: list[object] = []

    def worker() -> None:
        hold = Hold()
        seen.append(signal.getsignal(signal.SIGINT))
        hold.release()

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [signal.default_int_handler]


@pytest.mark.slow  # real processes
def test_ctrl_c_as_the_process_starts_still_stops_its_tree(tmp_path: Path) -> None:
    # The child interrupts ralph the instant it runs: on a busy machine, before ralph has a
    # supervisor for it. Held, then acted on where the tree is stopped: nothing survives.
    pidfile = tmp_path / "pid"
    sh = shutil.which("sh")
    assert sh is not None
    request = ProcessRequest(
        argv=(sh, "-c", f"echo $$ > {pidfile}; kill -INT $PPID; exec sleep 60"),
        cwd=tmp_path,
        env=dict(os.environ),
        timeout=30.0,
        kill_grace=1.0,
        tail_bytes=1024,
        confined=OPEN,
    )
    for _ in range(5):
        result = run_process(request, lambda stream, chunk: None)
        assert result.interrupted
        assert not _alive(int(pidfile.read_text()))


def _alive(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return False
