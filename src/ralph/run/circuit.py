"""The circuit breaker in a run: outcomes feed it, an open breaker holds the next attempt
until its cooldown is over (or the agents were changed), and escalates to a human (or,
headless, to --on-escalation)."""

from __future__ import annotations

import hashlib
import json
import time
from dataclasses import replace
from typing import TYPE_CHECKING

from ralph.errors import ExitCode
from ralph.rules import breaker as breakers
from ralph.rules import verification as fv
from ralph.rules.words import plural
from ralph.run.context import RunContext
from ralph.run.escalation import Escalation, apply_choice
from ralph.run.events import Notice
from ralph.run.facts import BreakerChanged, Escalated
from ralph.run.recorder import FAILED_STATUSES

if TYPE_CHECKING:
    from ralph.run.turn import Outcome

# The breaker's clock: the wall clock read once, then moved on by the monotonic clock, so a
# wall clock stepped during the run (NTP, a VM resumed, a person) moves no cooldown; what is
# read back from an earlier run is clamped by the rules (rules/breaker.py).
_WALL, _MONOTONIC = time.time(), time.monotonic()


def steady_now() -> float:
    """Epoch seconds that follow the monotonic clock from ralph's start."""
    return _WALL + (time.monotonic() - _MONOTONIC)


def agents_fingerprint(ctx: RunContext) -> str:
    """The run's agent configuration in 16 hex digits: each agent's name, command line, model,
    environment and limits. The values are hashed, never stored."""
    config = [
        {
            "name": m.name,
            "argv": m.agent.argv,
            "model": m.agent.model,
            "env": sorted(m.agent.extra_env.items()),
            "limits": (m.timeout, m.idle_timeout),
        }
        for m in ctx.opts.pool
    ]
    return hashlib.sha256(json.dumps(config).encode()).hexdigest()[:16]


class Circuit:
    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.escalate_now = False  # the last outcome opened the circuit breaker
        self.agents = agents_fingerprint(ctx)
        self.held: list[Notice] = []  # said once the rotation that caused them has its line

    def feed(self, success: bool, reason: str, subject: str) -> None:
        """Feed one outcome to the circuit breaker (the caller saves the state)."""
        ctx = self.ctx
        breaker, change = breakers.record(
            ctx.state.breaker,
            success=success,
            now=steady_now(),
            threshold=ctx.opts.breaker_threshold,
            reason=reason,
            subject=subject,
            agents=self.agents,
        )
        ctx.state = replace(ctx.state, breaker=breaker)
        if change is not None:
            self._changed(change, hold=True)
            self.escalate_now = change.after == breakers.OPEN

    def feed_outcome(self, outcome: Outcome) -> None:
        """A rotation's outcome: a failure unless it ended well; one the user stopped says
        nothing about the agent."""
        if outcome.interrupted:
            return
        signal, note = outcome.signal, outcome.note
        self.feed(
            signal not in FAILED_STATUSES,
            f"rotation {outcome.turn.iteration} on {outcome.spec}: {signal}"
            + (f" ({note})" if note else ""),
            outcome.spec,
        )

    def announce(self) -> None:
        """Say what the last outcome did to the breaker, after the rotation's own line."""
        held, self.held = self.held, []
        for notice in held:
            self.ctx.emit(notice)

    def _changed(self, change: breakers.Transition, *, hold: bool = False) -> None:
        ctx = self.ctx
        b = ctx.state.breaker
        ctx.emit(BreakerChanged(change.before, change.after, change.reason, b.failures, b.reasons))
        if change.after == breakers.OPEN:
            notice = Notice("warning", f"circuit breaker open: {change.reason}")
        else:
            notice = Notice("info", f"circuit breaker {change.before} -> {change.after}")
        if hold:
            self.held.append(notice)
        else:
            ctx.emit(notice)

    def admit(self) -> int | None:
        """Before an attempt: an open breaker lets one trial through once its cooldown is
        over; before that, it is a human's call."""
        ctx = self.ctx
        breaker, allowed, change = breakers.admit(
            ctx.state.breaker,
            now=steady_now(),
            cooldown=ctx.opts.breaker_cooldown,
            agents=self.agents,
        )
        if change is not None:
            ctx.state = replace(ctx.state, breaker=breaker)
            ctx.save()
            self._changed(change)
        if allowed:
            return None
        return self._escalate()

    def escalate_if_open(self) -> int | None:
        if not self.escalate_now:
            return None
        if not any(not seat.evicted for seat in self.ctx.pool.seats):
            # Every agent failed its rotations: the agent, not the spec, needs fixing. The
            # pool ends the run with exit 1 saying so; the breaker stays open for the next run.
            return None
        self.escalate_now = False
        return self._escalate()

    def _escalate(self) -> int | None:
        """Ask (or, headless, apply --on-escalation); the exit code when the run ends."""
        ctx = self.ctx
        b = ctx.state.breaker
        spec = None if b.subject in (None, fv.SUBJECT) else b.subject
        e = Escalation(
            spec=spec,
            failures=b.failures,
            reasons=b.reasons,
            cooldown_left=breakers.cooldown_left(
                b, now=steady_now(), cooldown=ctx.opts.breaker_cooldown
            ),
        )
        choice = ctx.decide(e)
        ctx.state = apply_choice(ctx.state, e, choice)
        ctx.save()
        ctx.emit(Escalated(e.key, e.subject, choice, e.failures, tuple(e.reasons)))
        if choice == "abort":
            wait = f"wait {e.cooldown_left:.0f} s and run again for one trial rotation"
            if e.cooldown_left <= 0:
                wait = "run again for one trial rotation"
            return ctx.end(
                ExitCode.NEEDS_HUMAN,
                f"aborted after {plural(e.failures, 'failure')} in a row on {e.subject} "
                f"(circuit breaker open); partial work kept. To go on: fix the cause, then "
                f"`ralph reset` (or change the agent), or {wait}",
            )
        _, change = breakers.reset(b, f"user chose {choice}")
        if change is not None:
            self._changed(change)
        if choice == "accept":
            ctx.emit(Notice("warning", f"{e.subject} accepted as verified by the user"))
            self._accept_changes(e.spec)
        else:
            ctx.emit(Notice("warning", f"going on without verification for {e.subject} (a risk)"))
        return None

    def _accept_changes(self, spec: str | None) -> None:
        """The person's Accept takes, too, what an agent changed that waited for a person's
        say (the checks, the tests, a drop in the test counts): of that spec, or of every one."""
        from ralph.checks.acceptance import Scope
        from ralph.checks.acceptors import accept_all, pending_all
        from ralph.specs.discovery import discover_specs

        ctx = self.ctx
        specs = tuple(discover_specs(ctx.opts.root))
        scope = Scope(ctx.opts.root, ctx.ws.dir, specs, spec, ctx.opts.test_globs)
        items = pending_all(scope, ctx.state)
        if items:
            ctx.state = accept_all(scope, ctx.state, items)
            ctx.save()
            for item in items:
                ctx.emit(Notice("warning", f"accepted by the user: {item.summary}"))
