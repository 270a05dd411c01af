"""Ctrl-C, SIGTERM and SIGHUP during a run: they stop it like Ctrl-C, but never mid-record."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from ralph.process.signals import STOP_SIGNALS, Hold


@contextmanager
def _handled(
    signals: tuple[int, ...], handler: Callable[[int, FrameType | None], None]
) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return
    previous = {sig: signal.signal(sig, handler) for sig in signals}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def stop_signals_as_interrupt() -> contextlib.AbstractContextManager[None]:
    """SIGTERM and SIGHUP stop a run the way Ctrl-C does: the agent is stopped, state saved."""
    return _handled(STOP_SIGNALS, _raise_interrupt)


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP while a rotation is recorded, then act on them.

    Re-entrant: inside an outer block an inner one changes nothing, so the interrupt is acted
    on only once the outermost block is done."""
    hold = Hold()
    try:
        yield
    except BaseException:
        hold.release(act=False)  # the block's own exception is what the caller sees
        raise
    hold.release()
