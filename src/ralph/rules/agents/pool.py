"""The agent pool's rules, pure: which agent runs next, benching, eviction, when to wait or stop.

The loop owns the clock and the processes; everything here takes `now` and returns new values,
so each rule is tested without running anything.

- Rotation: `round-robin` takes the agents in turn; `fallback` always takes the first available
  agent in the order given (the others only stand in while it is benched or evicted).
- Fresh eyes: a REVIEW rotation prefers an available agent other than the one that last changed
  the spec's files; with a single available agent it runs anyway.
- A rate limit benches the agent until its reset time, or for `backoff` seconds when the agent
  gave none. A short limit (a per-minute API limit, a busy server: no plan window named) is
  retried after the delay the agent gave, or after `short_backoff` seconds doubling each time,
  and waited for like a known reset; `short_retries` short limits in a row and it counts as an
  ordinary limit. A reset the agent gave that is already past (the limit lifted while the agent
  was exiting) is a short limit too: never a reason to give up.
- A failed rotation (crash, error exit, timeout) counts against the agent;
  `max_failures` in a row evict it for the rest of the run. Any other rotation clears the count.
- Nobody available: wait for the earliest return when some agent gave a reset time and that is
  at most `max_wait` away; otherwise stop (exit 4, with when to retry); when every agent was
  evicted, stop as an error (exit 1): retrying later does not mend a broken agent.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Literal

from ralph.rules.text.words import plural

Rotation = Literal["round-robin", "fallback"]
ROTATIONS: tuple[Rotation, ...] = ("round-robin", "fallback")
Outcome = Literal["ok", "failed", "rate_limited"]


@dataclass(frozen=True)
class PoolPolicy:
    rotation: Rotation = "round-robin"
    fresh_eyes: bool = True  # REVIEW prefers another agent than the last one to change files
    backoff: float = 900.0  # seconds benched after a rate limit that gives no reset time
    max_failures: int | None = 3  # failed rotations in a row before eviction; None: never
    max_wait: float = 6 * 3600.0  # longest wait for a known reset time before exit 4
    short_backoff: float = 10.0  # first retry delay after a short limit that gave none
    short_retries: int = 5  # short limits in a row retried before the ordinary back-off
    wait_for_reset: bool = False  # also wait (up to max_wait) for a weekly or daily window
    pause_at: float | None = None  # percent of a window at which an agent is parked


@dataclass(frozen=True)
class Seat:
    """One agent's standing in the pool during a run."""

    name: str
    benched_until: float | None = None  # epoch seconds
    reset_known: bool = False  # the agent said when its limit resets (else: our back-off)
    failures: int = 0  # failed rotations in a row
    limits: int = 0  # rate limits in a row
    window: str | None = None  # the limit window it sits out (weekly, session, ...)
    evicted: bool = False
    reason: str | None = None  # the last rate-limit or failure message

    def available(self, now: float) -> bool:
        return not self.evicted and (self.benched_until is None or self.benched_until <= now)


@dataclass(frozen=True)
class Pool:
    seats: tuple[Seat, ...]
    cursor: int = 0  # round-robin: the seat to try first next time

    @staticmethod
    def of(names: Sequence[str]) -> Pool:
        if not names:
            raise ValueError("a pool needs at least one agent")
        if len(set(names)) != len(names):
            raise ValueError(f"agent names must be unique: {list(names)}")
        return Pool(tuple(Seat(name) for name in names))

    def seat(self, name: str) -> Seat:
        return next(s for s in self.seats if s.name == name)

    def index(self, name: str) -> int:
        return next(i for i, s in enumerate(self.seats) if s.name == name)

    def _with(self, seat: Seat) -> Pool:
        return replace(self, seats=tuple(seat if s.name == seat.name else s for s in self.seats))


@dataclass(frozen=True)
class Pick:
    name: str
    pool: Pool  # the pool with its cursor moved past the pick


@dataclass(frozen=True)
class Wait:
    until: float  # epoch seconds: the earliest moment an agent is back
    reason: str


@dataclass(frozen=True)
class Exhausted:
    evicted: bool  # True: every agent was evicted (exit 1); False: rate limits (exit 4)
    retry_at: float | None  # when to try again, when known
    reason: str


Choice = Pick | Wait | Exhausted


def choose(
    pool: Pool, policy: PoolPolicy, now: float, *, review: bool, avoid: str | None
) -> Choice:
    """The agent for the next rotation, or how long to wait, or why the run must stop."""
    n = len(pool.seats)
    start = pool.cursor % n if policy.rotation == "round-robin" else 0
    order = [pool.seats[(start + k) % n] for k in range(n)]
    ready = [s for s in order if s.available(now)]
    if ready:
        chosen = ready[0]
        if review and policy.fresh_eyes and avoid is not None:
            chosen = next((s for s in ready if s.name != avoid), chosen)
        cursor = (pool.index(chosen.name) + 1) % n
        return Pick(chosen.name, replace(pool, cursor=cursor))
    return _nobody_ready(pool, policy, now)


def _nobody_ready(pool: Pool, policy: PoolPolicy, now: float) -> Wait | Exhausted:
    benched = [s for s in pool.seats if not s.evicted]
    if not benched:
        why = "; ".join(f"{s.name}: {s.reason}" for s in pool.seats if s.reason)
        return Exhausted(
            evicted=True,
            retry_at=None,
            reason=f"every agent failed {plural(policy.max_failures or 0, 'rotation')} in a row"
            + (f" ({why})" if why else ""),
        )
    back = min(s.benched_until or now for s in benched)
    told = ", ".join(describe(s, now) for s in benched)
    # Worth waiting for: a reset the agent announced, near enough (a weekly or daily window
    # only when asked: --wait-for-reset). Until then ralph may as well retry an agent whose
    # back-off (a guess) ends sooner; guesses alone are not waited for.
    if any(_waitable(s, policy, now) for s in benched):
        return Wait(until=back, reason=f"every agent is rate-limited ({told})")
    long = [s for s in benched if s.window in LONG and s.reset_known]
    if long and len(long) == len(benched):  # the exact time to come back: the first reset
        back = min(s.benched_until or now for s in long)
    return Exhausted(
        evicted=False, retry_at=back, reason=f"every agent is rate-limited or out ({told})"
    )


LONG = frozenset({"weekly", "daily"})  # windows waited for only with --wait-for-reset


def _waitable(seat: Seat, policy: PoolPolicy, now: float) -> bool:
    if not seat.reset_known or (seat.benched_until or now) - now > policy.max_wait:
        return False
    return seat.window not in LONG or policy.wait_for_reset


def describe(seat: Seat, now: float) -> str:
    """`claude until 14:05` / `codex back-off until 13:20` / `pi evicted`, for messages."""
    if seat.evicted:
        return f"{seat.name} evicted"
    if seat.benched_until is None:
        return f"{seat.name} ready"
    kind = "until" if seat.reset_known else "back-off until"
    window = f" ({seat.window} window)" if seat.window and seat.window != "short" else ""
    return f"{seat.name} {kind} {clock(seat.benched_until, now)}{window}"


def clock(epoch: float, now: float) -> str:
    """`14:05` today (local time); `Mon 24 Nov 10:00` on another day (a weekly limit). The caller
    reads the clock: a rule takes the time as a value."""
    when = time.localtime(epoch)
    today = time.localtime(now)
    if (when.tm_year, when.tm_yday) == (today.tm_year, today.tm_yday):
        return time.strftime("%H:%M", when)
    return time.strftime("%a %d %b %H:%M", when)


def after_rotation(
    pool: Pool,
    policy: PoolPolicy,
    name: str,
    outcome: Outcome,
    now: float,
    *,
    resets_at: float | None = None,
    reason: str | None = None,
    short: bool = False,
    window: str | None = None,
) -> Pool:
    """The pool after `name`'s rotation ended with `outcome` (`short`: a short rate limit;
    `window`: the limit's window)."""
    seat = pool.seat(name)
    if outcome == "rate_limited":
        until, known = bench_until(policy, now, resets_at, short, seat.limits + 1)
        seat = replace(
            seat,
            benched_until=until,
            reset_known=known,
            reason=reason,
            limits=seat.limits + 1,
            window=window,
        )
    elif outcome == "failed":
        failures = seat.failures + 1
        evicted = policy.max_failures is not None and failures >= policy.max_failures
        seat = replace(seat, failures=failures, evicted=evicted, reason=reason)
    else:
        seat = replace(
            seat,
            failures=0,
            limits=0,
            benched_until=None,
            reset_known=False,
            reason=None,
            window=None,
        )
    return pool._with(seat)


def park(pool: Pool, name: str, until: float, window: str, reason: str) -> Pool:
    """`name` sits out until its `window` resets (`limits.pause_at` reached): parked before
    the wall, not run into a hard refusal."""
    seat = replace(
        pool.seat(name), benched_until=until, reset_known=True, window=window, reason=reason
    )
    return pool._with(seat)


def bench_until(
    policy: PoolPolicy, now: float, resets_at: float | None, short: bool, in_row: int
) -> tuple[float, bool]:
    """When a rate-limited agent may run again, and whether that time is known (worth waiting
    for) rather than a guess. `in_row`: this agent's rate limits in a row, this one included."""
    if resets_at is not None and resets_at > now and not (short and resets_at - now < 1.0):
        return resets_at, True
    if (short or resets_at is not None) and in_row <= policy.short_retries:
        # retry-after 0 or a reset just past: a second, then doubling; else the short back-off
        first = 1.0 if resets_at is not None else policy.short_backoff
        return now + min(first * 2 ** (in_row - 1), policy.backoff), True
    return now + policy.backoff, False


def release_due(pool: Pool, now: float) -> Pool:
    """Seats whose bench time has passed are ready again (their reason forgotten)."""
    seats = tuple(
        replace(s, benched_until=None, reset_known=False, window=None)
        if s.benched_until is not None and s.benched_until <= now
        else s
        for s in pool.seats
    )
    return replace(pool, seats=seats)
