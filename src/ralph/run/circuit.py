"""The circuit breaker in a run: an outcome moves it in the pure fold (run/fold.py); here what
it did is said, an open breaker holds the next attempt until its cooldown is over (or the
agents were changed), and escalates to a human (or, headless, to --on-escalation)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

from ralph.errors import ExitCode
from ralph.rules import breaker as breakers
from ralph.rules import verification as fv
from ralph.rules.pool import Pool
from ralph.rules.state import State
from ralph.rules.words import plural
from ralph.run.context import Shared
from ralph.run.escalation import Escalation, apply_choice
from ralph.run.events import Notice
from ralph.run.facts import BreakerChanged, Escalated


def agents_fingerprint(run: Shared) -> str:
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
        for m in run.opts.pool
    ]
    return hashlib.sha256(json.dumps(config).encode()).hexdigest()[:16]


class Circuit:
    """The breaker's moves that are not an outcome's (an outcome's is folded: rules/breaker
    `after_rotation`), on the state the scheduler passes: each returns the new state and,
    when the run ends, its exit code. It keeps nothing that changes: what an outcome did to
    the breaker is read from the breaker before and after it (rules/breaker.py `moved`)."""

    def __init__(self, run: Shared) -> None:
        self.run = run
        # what the fold needs of the run's breaker: a value, read, never changed
        self.rule = breakers.Rule(run.opts.config.breaker.threshold, agents_fingerprint(run))

    def say(self, before: breakers.Breaker, after: breakers.Breaker) -> None:
        """What an outcome did to the breaker (it was `before`), said."""
        change = breakers.moved(before, after)
        if change is not None:
            self._say(after, change)

    def escalate_if_opened(
        self, before: breakers.Breaker, state: State, pool: Pool
    ) -> tuple[State, int | None]:
        """A breaker an outcome opened (it was `before`) is a person's call; the state after,
        and the exit code when the run ends."""
        if not breakers.opened(before, state.breaker):
            return state, None
        if not any(not seat.evicted for seat in pool.seats):
            # Every agent failed its rotations: the agent, not the spec, needs fixing. The
            # pool ends the run with exit 1 saying so; the breaker stays open for the next run.
            return state, None
        return self._escalate(state)

    def _say(self, b: breakers.Breaker, change: breakers.Transition) -> None:
        """A transition: its fact recorded, its line said."""
        self.run.emit(
            BreakerChanged(change.before, change.after, change.reason, b.failures, b.reasons)
        )
        if change.after == breakers.OPEN:
            self.run.emit(Notice("warning", f"circuit breaker open: {change.reason}"))
        else:
            self.run.emit(Notice("info", f"circuit breaker {change.before} -> {change.after}"))

    def admit(self, state: State) -> tuple[State, int | None]:
        """Before an attempt: an open breaker lets one trial through once its cooldown is
        over; before that, it is a human's call. The state after (its scheduler saves it),
        and the exit code when the run ends."""
        breaker, allowed, change = breakers.admit(
            state.breaker,
            now=self.run.clock(),
            cooldown=self.run.opts.config.breaker.cooldown,
            agents=self.rule.agents,
        )
        if change is not None:
            state = replace(state, breaker=breaker)
            self._say(breaker, change)
        if allowed:
            return state, None
        return self._escalate(state)

    def _escalate(self, state: State) -> tuple[State, int | None]:
        """Ask (or, headless, apply --on-escalation); the state after, and the exit code when
        the run ends."""
        run = self.run
        b = state.breaker
        spec = None if b.subject in (None, fv.SUBJECT) else b.subject
        e = Escalation(
            spec=spec,
            failures=b.failures,
            reasons=b.reasons,
            cooldown_left=breakers.cooldown_left(
                b, now=run.clock(), cooldown=run.opts.config.breaker.cooldown
            ),
        )
        choice = run.decide(e)
        state = apply_choice(state, e, choice)
        run.emit(Escalated(e.key, e.subject, choice, e.failures, tuple(e.reasons)))
        if choice == "abort":
            wait = f"wait {e.cooldown_left:.0f} s and run again for one trial rotation"
            if e.cooldown_left <= 0:
                wait = "run again for one trial rotation"
            return state, run.end(
                state,
                ExitCode.NEEDS_HUMAN,
                f"aborted after {plural(e.failures, 'failure')} in a row on {e.subject} "
                f"(circuit breaker open); partial work kept. To go on: fix the cause, then "
                f"`ralph reset` (or change the agent), or {wait}",
            )
        _, change = breakers.reset(b, f"user chose {choice}")
        if change is not None:
            self._say(state.breaker, change)
        if choice == "accept":
            run.emit(Notice("warning", f"{e.subject} accepted as verified by the user"))
            state = self._accept_changes(state, e.spec)
        else:
            run.emit(Notice("warning", f"going on without verification for {e.subject} (a risk)"))
        return state, None

    def _accept_changes(self, state: State, spec: str | None) -> State:
        """The person's Accept takes, too, what an agent changed that waited for a person's
        say (the checks, the tests, a drop in the test counts): of that spec, or of every one."""
        from ralph.checks.acceptance import Scope
        from ralph.checks.acceptors import accept_all, pending_all
        from ralph.specs.discovery import discover_specs

        run = self.run
        specs = tuple(discover_specs(run.opts.root))
        scope = Scope(run.opts.root, run.ws.dir, specs, spec, run.opts.test_globs, run.git)
        items = pending_all(scope, state)
        if items:
            state = accept_all(scope, state, items)
            for item in items:
                run.emit(Notice("warning", f"accepted by the user: {item.summary}"))
        return state
