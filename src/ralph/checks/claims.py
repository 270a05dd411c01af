"""The strict tier's claim check: what the agent claims (DONE: every acceptance box ticked)
against what is on disk, by the verification state machine of the verification-system seed.

    CLAIMED -> READ_STATE -> MATCH -> PASS
                          -> MISMATCH | TIMEOUT -> RETRY (after 100 ms) -> READ_STATE ...
                                                -> ESCALATE (retries used up)

A read that takes longer than 1,000 ms counts as a mismatch. One automatic retry absorbs a write
the agent had not finished when it exited. Pure: the read, the sleep and the transition log are
injected, so every branch is tested without touching a disk or a clock.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from enum import Enum

RETRY_DELAY_MS = 100
READ_TIMEOUT_MS = 1000
MAX_AUTOMATIC_RETRIES = 1
STRICT = "strict"

_BOX = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+\[(?P<mark>[ xX])\]\s")
_FENCE = re.compile(r"^\s*(?P<fence>`{3,}|~{3,})")


class VState(Enum):
    CLAIMED = "claimed"  # the agent said DONE (the seed's "TodoWrite executed")
    READ_STATE = "read_state"
    MATCH = "match"
    MISMATCH = "mismatch"
    TIMEOUT = "timeout"
    RETRY = "retry"
    ESCALATE = "escalate"
    PASS = "pass"


@dataclass(frozen=True)
class Boxes:
    """The acceptance checkboxes of a spec as they are on disk."""

    total: int
    open: int

    @property
    def status(self) -> str:
        return "complete" if self.open == 0 else "incomplete"


@dataclass(frozen=True)
class Claim:
    """What a DONE claims: the spec is complete, no box left open."""

    status: str = "complete"
    open: int = 0


@dataclass(frozen=True)
class Outcome:
    passed: bool
    state: VState  # PASS or ESCALATE
    attempts: int  # reads made
    details: str | None  # why it escalated
    transitions: tuple[tuple[VState, VState], ...]


def should_verify(tier: str) -> bool:
    """Only the strict tier compares the claim with the disk."""
    return tier == STRICT


def count_boxes(text: str) -> Boxes:
    """Checkboxes (`- [ ]`, `- [x]`, `1. [ ]`) outside fenced code blocks."""
    total = open_ = 0
    fence: str | None = None
    for line in text.splitlines():
        found = _FENCE.match(line)
        if found is not None:
            marker = found["fence"]
            if fence is None:
                fence = marker
            elif marker[0] == fence[0] and len(marker) >= len(fence):
                fence = None
            continue
        if fence is not None:
            continue
        box = _BOX.match(line)
        if box is not None:
            total += 1
            open_ += box["mark"] == " "
    return Boxes(total, open_)


def compare(expected: Claim, actual: Boxes | None) -> str | None:
    """None on a match (status and count exact), else what differs."""
    if actual is None:
        return "the spec file is gone"
    if expected.status != actual.status:
        return (
            f"status: claimed {expected.status}, on disk {actual.status} "
            f"({actual.open} of {actual.total} box{'' if actual.total == 1 else 'es'} unticked)"
        )
    if expected.open != actual.open:
        return f"count: claimed {expected.open} open, on disk {actual.open}"
    return None


Reader = Callable[[], "Boxes | None"]


@dataclass
class VerificationMachine:
    """Runs one claim check; `on_transition` sees every state change (the worklog)."""

    read: Reader
    sleep: Callable[[float], None] = time.sleep
    on_transition: Callable[[VState, VState], None] | None = None
    retry_delay_ms: int = RETRY_DELAY_MS
    timeout_ms: int = READ_TIMEOUT_MS
    max_retries: int = MAX_AUTOMATIC_RETRIES
    state: VState = VState.CLAIMED
    retries: int = 0
    _log: list[tuple[VState, VState]] = field(default_factory=list)

    def _to(self, new: VState) -> None:
        self._log.append((self.state, new))
        if self.on_transition is not None:
            self.on_transition(self.state, new)
        self.state = new

    def run(self, expected: Claim | None = None) -> Outcome:
        claim = expected or Claim()
        attempts = 0
        while True:
            self._to(VState.READ_STATE)
            attempts += 1
            ok, actual, error = _read_within(self.read, self.timeout_ms / 1000)
            if not ok:
                self._to(VState.TIMEOUT)
                details = f"reading the spec took longer than {self.timeout_ms} ms"
            elif error is not None:
                self._to(VState.MISMATCH)
                details = f"cannot read the spec: {error}"
            else:
                mismatch = compare(claim, actual)
                if mismatch is None:
                    self._to(VState.MATCH)
                    self._to(VState.PASS)
                    return Outcome(True, self.state, attempts, None, tuple(self._log))
                self._to(VState.MISMATCH)
                details = mismatch
            if self.retries >= self.max_retries:
                self._to(VState.ESCALATE)
                return Outcome(False, self.state, attempts, details, tuple(self._log))
            self._to(VState.RETRY)
            self.retries += 1
            self.sleep(self.retry_delay_ms / 1000)


def _read_within(read: Reader, timeout: float) -> tuple[bool, Boxes | None, str | None]:
    """(finished in time, what was read, the error if the read failed)."""
    box: dict[str, Boxes | str | None] = {}

    def target() -> None:
        try:
            box["value"] = read()
        except OSError as exc:
            box["error"] = exc.strerror or str(exc)

    # A daemon thread: a read stuck on a dead network mount must not keep ralph alive.
    worker = threading.Thread(target=target, name="ralph-claim-read", daemon=True)
    worker.start()
    worker.join(timeout)
    if worker.is_alive():
        return False, None, None
    error = box.get("error")
    if isinstance(error, str):
        return True, None, error
    value = box.get("value")
    return True, value if isinstance(value, Boxes) else None, None
