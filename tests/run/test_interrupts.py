"""run/interrupts.py: SIGTERM and SIGHUP stop a run as Ctrl-C does, and no stop signal cuts a
rotation's record in half: held while it is written, acted on once it is."""

from __future__ import annotations

import os
import signal
import sys

import pytest

from ralph.run.interrupts import deferred_interrupts, stop_signals_as_interrupt

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals to oneself")


def test_sigterm_during_a_run_is_a_ctrl_c_and_the_old_handler_comes_back() -> None:
    before = signal.getsignal(signal.SIGTERM)
    with pytest.raises(KeyboardInterrupt), stop_signals_as_interrupt():
        os.kill(os.getpid(), signal.SIGTERM)
    assert signal.getsignal(signal.SIGTERM) == before


def test_a_signal_while_a_record_is_written_waits_for_the_record() -> None:
    written = []
    with pytest.raises(KeyboardInterrupt), deferred_interrupts():
        os.kill(os.getpid(), signal.SIGINT)
        written.append("the whole record")  # not cut off half way
    assert written == ["the whole record"]


def test_the_blocks_own_error_is_what_the_caller_sees() -> None:
    # the control: an error inside the block is not turned into an interrupt, nor hidden
    with pytest.raises(ValueError, match="disk full"), deferred_interrupts():
        os.kill(os.getpid(), signal.SIGINT)
        raise ValueError("disk full")
