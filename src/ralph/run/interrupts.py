"""Ctrl-C, SIGTERM and SIGHUP during a run: they stop it like Ctrl-C, but never mid-record."""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

# Signals that end a run the way Ctrl-C does: a CI job cancelled (SIGTERM), an ssh session
# or terminal gone (SIGHUP; Linux and macOS only), Ctrl-Break at a Windows console (SIGBREAK,
# Windows only; a cancelled Windows CI step gets Ctrl-C, then Ctrl-Break). The agent runs in
# its own session (its own process group on Windows) and never receives them.
_STOP_SIGNALS = tuple(
    sig
    for sig in (
        getattr(signal, "SIGTERM", None),
        getattr(signal, "SIGHUP", None),
        getattr(signal, "SIGBREAK", None),
    )
    if sig
)


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
    return _handled(_STOP_SIGNALS, _raise_interrupt)


@contextmanager
def deferred_interrupts() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP while a rotation is recorded, then act on them.

    Re-entrant: inside an outer block an inner one changes nothing, so the interrupt is acted
    on only once the outermost block is done."""
    global _DEFERRING  # noqa: PLW0603 -- signal handling is process-wide
    if _DEFERRING or threading.current_thread() is not threading.main_thread():
        yield  # only the main thread receives signals (a lane's thread has none to hold)
        return
    pending: list[int] = []
    _DEFERRING = True
    try:
        with _handled(
            (signal.SIGINT, *_STOP_SIGNALS), lambda signum, frame: pending.append(signum)
        ):
            yield
    finally:
        _DEFERRING = False
    if pending:
        raise KeyboardInterrupt


_DEFERRING = False
