"""The signals that stop ralph, and holding them for a moment.

Ctrl-C raises KeyboardInterrupt between any two bytecodes of the main thread. Some instants must
not be cut: a process just started that ralph cannot stop yet (no supervisor holds it), a record
half written. A hold keeps the signals that arrive meanwhile and acts on them when released.
"""

from __future__ import annotations

import signal
import threading
from types import FrameType

# Signals that end a run the way Ctrl-C does: a CI job cancelled (SIGTERM), an ssh session
# or terminal gone (SIGHUP; Linux and macOS only), Ctrl-Break at a Windows console (SIGBREAK,
# Windows only; a cancelled Windows CI step gets Ctrl-C, then Ctrl-Break). The agent runs in
# its own session (its own process group on Windows) and never receives them.
STOP_SIGNALS = tuple(
    sig
    for sig in (
        getattr(signal, "SIGTERM", None),
        getattr(signal, "SIGHUP", None),
        getattr(signal, "SIGBREAK", None),
    )
    if sig
)

_holding = threading.Lock()  # held by the outermost hold: signal handling is process-wide


class Hold:
    """From its creation to `release()`, Ctrl-C and the stop signals are noted, not raised.

    Re-entrant: inside an outer hold an inner one changes nothing, so the interrupt is acted on
    once the outermost is released. Outside the main thread it does nothing: only the main
    thread receives signals."""

    def __init__(self) -> None:
        self.pending: list[int] = []
        self._previous: dict[int, object] = {}
        self._active = threading.current_thread() is threading.main_thread() and _holding.acquire(
            False
        )
        if self._active:
            for sig in (signal.SIGINT, *STOP_SIGNALS):
                self._previous[sig] = signal.signal(sig, self._note)

    def _note(self, signum: int, frame: FrameType | None) -> None:
        self.pending.append(signum)

    def release(self, *, act: bool = True) -> None:
        """Restore the handlers; with `act`, a signal that came meanwhile raises
        KeyboardInterrupt here (the caller's clean-up is ready for it by now)."""
        if not self._active:
            return
        self._active = False
        try:
            for sig, old in self._previous.items():
                signal.signal(sig, old)  # type: ignore[arg-type]
        finally:
            _holding.release()
        if act and self.pending:
            raise KeyboardInterrupt
