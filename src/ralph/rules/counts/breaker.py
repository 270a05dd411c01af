"""The circuit breaker over repeated failures: pure, so every transition is unit-tested.

Failures are refused DONEs, failed final verifications and failed rotations (crash, error exit,
timeout); any other outcome is a success. Failures count in a row whatever they are about; a
success resets them only when it is about the subject of the latest failure (the same spec, or
the final verification), so a spec that keeps failing is not hidden by another spec's progress,
and review rotations between failed verifications do not hide those. After `threshold`
consecutive failures the breaker opens
and ralph escalates to a human. An open breaker blocks until its cooldown has passed, then lets
exactly one trial through (HALF_OPEN): a success closes it, a failure opens it again. The
breaker lives in `state.json`, so restarting ralph never resets it; but a run whose agent
configuration differs from the one the breaker opened under (a fixed or another agent) gets
its trial at once: waiting out the cooldown would only keep a mended agent idle.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Final, Literal

from ralph.rules.text.words import plural

BreakerState = Literal["CLOSED", "OPEN", "HALF_OPEN"]
CLOSED: Final = "CLOSED"
OPEN: Final = "OPEN"
HALF_OPEN: Final = "HALF_OPEN"
STATES: Final = (CLOSED, OPEN, HALF_OPEN)
DEFAULT_THRESHOLD: Final = 3
DEFAULT_COOLDOWN: Final = 300.0  # seconds
KEPT_REASONS: Final = 5  # the last failures, shown when ralph escalates
FAILED: Final = frozenset({"ERROR", "REFUSED"})  # the signals of a failed rotation


@dataclass(frozen=True)
class Breaker:
    state: BreakerState = CLOSED
    failures: int = 0  # consecutive failures since the last success
    opened_at: float | None = None  # epoch seconds when it last opened
    reasons: tuple[str, ...] = ()  # the most recent failures, oldest first
    subject: str | None = None  # what the latest failure was about (a spec path)
    agents: str | None = None  # the agent configuration it opened under (a fingerprint)


@dataclass(frozen=True)
class Transition:
    before: BreakerState
    after: BreakerState
    reason: str


def record(
    breaker: Breaker,
    *,
    success: bool,
    now: float,
    threshold: int,
    reason: str = "",
    subject: str | None = None,
    agents: str | None = None,
) -> tuple[Breaker, Transition | None]:
    """The breaker after one outcome, and the state transition it caused (None: no change)."""
    if success:
        if breaker.subject is not None and subject is not None and subject != breaker.subject:
            return breaker, None  # another spec doing fine says nothing about the failing one
        after = Breaker()
    else:
        failures = breaker.failures + 1
        reasons = (*breaker.reasons, reason)[-KEPT_REASONS:]
        after = replace(breaker, failures=failures, reasons=reasons, subject=subject)
        # a failure while blocked (the user chose to go on) leaves it open as it was
        if breaker.state == HALF_OPEN or (breaker.state == CLOSED and failures >= threshold):
            after = replace(after, state=OPEN, opened_at=now, agents=agents)
    return after, moved(breaker, after)


def moved(before: Breaker, after: Breaker) -> Transition | None:
    """The transition an outcome made (`record`), read from the breaker before and after it:
    whoever folded the outcome need not pass it on."""
    if after.state == before.state:
        return None
    if after.state == OPEN:
        why = (
            "the trial failed"
            if before.state == HALF_OPEN
            else f"{plural(after.failures, 'failure')} in a row"
        )
        return Transition(before.state, OPEN, why)
    return Transition(before.state, after.state, "success")


@dataclass(frozen=True)
class Rule:
    """The run's breaker: the failures in a row that open it, the agent configuration (a
    fingerprint) it opens under."""

    threshold: int = DEFAULT_THRESHOLD
    agents: str | None = None


def after_rotation(
    breaker: Breaker,
    rule: Rule,
    *,
    signal: str,
    note: str | None,
    iteration: int,
    spec: str,
    interrupted: bool,
    now: float,
) -> Breaker:
    """A rotation's outcome: a failure (a refused DONE, an error) unless it ended well; one
    the user stopped says nothing about the agent."""
    if interrupted:
        return breaker
    reason = f"rotation {iteration} on {spec}: {signal}" + (f" ({note})" if note else "")
    after, _ = record(
        breaker,
        success=signal not in FAILED,
        now=now,
        threshold=rule.threshold,
        reason=reason,
        subject=spec,
        agents=rule.agents,
    )
    return after


def opened(before: Breaker, after: Breaker) -> bool:
    """Whether the outcomes between `before` and `after` opened the breaker: a failure while
    it was already open (the user chose to go on, or another lane's failure opened it) is
    not a new opening, and asks no one again."""
    return after.state == OPEN and before.state != OPEN


def cooldown_left(breaker: Breaker, *, now: float, cooldown: float) -> float:
    """Seconds until an open breaker allows a trial; 0 when it is not open or the time is up.
    Never more than the cooldown itself: a clock stepped back since the breaker opened (an
    opening time in the future) must not turn 300 s into a year."""
    if breaker.state != OPEN or breaker.opened_at is None:
        return 0.0
    return min(cooldown, max(0.0, breaker.opened_at + cooldown - now))


def admit(
    breaker: Breaker, *, now: float, cooldown: float, agents: str | None = None
) -> tuple[Breaker, bool, Transition | None]:
    """May the next attempt run? An open breaker whose cooldown is over, or that opened under
    another agent configuration than `agents`, becomes HALF_OPEN and lets one trial through;
    one still cooling down with the same agents refuses."""
    if breaker.state != OPEN:
        return breaker, True, None
    if breaker.agents is not None and agents is not None and agents != breaker.agents:
        why = "the agent configuration changed"
    elif cooldown_left(breaker, now=now, cooldown=cooldown) > 0:
        return breaker, False, None
    else:
        why = "cooldown over"
    return replace(breaker, state=HALF_OPEN), True, Transition(OPEN, HALF_OPEN, why)


def reset(breaker: Breaker, why: str) -> tuple[Breaker, Transition | None]:
    """A human resolved the escalation: back to CLOSED with no failures counted."""
    if breaker.state == CLOSED:
        return Breaker(), None
    return Breaker(), Transition(breaker.state, CLOSED, why)
