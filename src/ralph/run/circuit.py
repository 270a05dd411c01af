"""The circuit breaker in a run: an outcome moves it in the pure fold (run/fold.py); here what
it did is said, an open breaker holds the next attempt until its cooldown is over (or the
agents were changed), and escalates to a human (or, headless, to --on-escalation). In
`ralph run --parallel` each lane has its own breaker (rules/counts/lanebreakers.py): an open one
pauses its lane, and a person is asked only when no lane can go on."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace

from ralph.rules.agents.pool import Pool
from ralph.rules.counts import breaker as breakers
from ralph.rules.counts import verification as fv
from ralph.rules.counts.breaker import Breaker
from ralph.rules.counts.lanebreakers import breaker_of, paused, with_lane_breaker
from ralph.rules.counts.state import State
from ralph.rules.counts.stops import Stop
from ralph.rules.text.words import plural
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
    when the run ends, how (a Stop: its scheduler says the end). It keeps nothing that
    changes: what an outcome did to the breaker is read from the breaker before and after
    it (rules/counts/breaker.py `moved`)."""

    def __init__(self, run: Shared) -> None:
        self.run = run
        # what the fold needs of the run's breaker: a value, read, never changed
        self.rule = breakers.Rule(run.opts.config.breaker.threshold, agents_fingerprint(run))

    def say(self, before: Breaker, after: Breaker, lane: str | None = None) -> None:
        """What an outcome did to the breaker (it was `before`; `lane`: the spec whose lane's
        own breaker it is), said."""
        change = breakers.moved(before, after)
        if change is not None:
            self._say(after, change, lane)

    def escalate_if_opened(
        self, before: breakers.Breaker, state: State, pool: Pool
    ) -> tuple[State, Stop | None]:
        """A breaker an outcome opened (it was `before`) is a person's call; the state after,
        and how the run ends when it does."""
        if not breakers.opened(before, state.breaker):
            return state, None
        if not any(not seat.evicted for seat in pool.seats):
            # Every agent failed its rotations: the agent, not the spec, needs fixing. The
            # pool ends the run with exit 1 saying so; the breaker stays open for the next run.
            return state, None
        return self._escalate(state, None)

    def _say(
        self, b: breakers.Breaker, change: breakers.Transition, lane: str | None = None
    ) -> None:
        """A transition: its fact recorded, its line said."""
        self.run.emit(
            BreakerChanged(change.before, change.after, change.reason, b.failures, b.reasons, lane)
        )
        whose = "circuit breaker" if lane is None else f"circuit breaker of {lane}'s lane"
        if change.after == breakers.OPEN:
            pause = "" if lane is None else "; that lane pauses, the other lanes go on"
            self.run.emit(Notice("warning", f"{whose} open: {change.reason}{pause}"))
        else:
            self.run.emit(Notice("info", f"{whose} {change.before} -> {change.after}"))

    def admit(self, state: State, lane: str | None = None) -> tuple[State, Stop | None]:
        """Before an attempt: an open breaker (the run's, or `lane`'s own) lets one trial
        through once its cooldown is over; before that, it is a human's call. The state after
        (its scheduler saves it), and how the run ends when it does."""
        before = breaker_of(state, lane)
        breaker, allowed, change = breakers.admit(
            before,
            now=self.run.clock(),
            cooldown=self.run.opts.config.breaker.cooldown,
            agents=self.rule.agents,
        )
        if change is not None:
            state = (
                replace(state, breaker=breaker)
                if lane is None
                else with_lane_breaker(state, lane, breaker)
            )
            self._say(breaker, change, lane)
        if allowed:
            return state, None
        return self._escalate(state, lane)

    def paused(self, state: State, specs: list[str]) -> list[str]:
        """The specs among `specs` whose lane's breaker is open and cooling down."""
        config = self.run.opts.config.breaker
        return paused(
            state, specs, now=self.run.clock(), cooldown=config.cooldown, agents=self.rule.agents
        )

    def ask_paused(self, state: State, waiting: list[str]) -> tuple[State, Stop | None] | None:
        """No lane runs and none could start: the first spec of `waiting` whose lane its own
        breaker paused is a person's call, as the run's breaker is one spec at a time. The
        state after and how the run ends when it does; None when no lane is paused."""
        paused = self.paused(state, waiting)
        return None if not paused else self.admit(state, paused[0])  # cooling down: asks

    def _escalate(self, state: State, lane: str | None) -> tuple[State, Stop | None]:
        """Ask (or, headless, apply --on-escalation) about the run's breaker, or `lane`'s; the
        state after, and how the run ends when it does: its scheduler says the end, once the
        rotations still running have ended (their outcomes counted first)."""
        run = self.run
        b = breaker_of(state, lane)
        spec = lane or (None if b.subject in (None, fv.SUBJECT) else b.subject)
        e = Escalation(
            spec=spec,
            failures=b.failures,
            reasons=b.reasons,
            cooldown_left=breakers.cooldown_left(
                b, now=run.clock(), cooldown=run.opts.config.breaker.cooldown
            ),
            lane=lane is not None,
        )
        choice = run.decide(e)
        state = apply_choice(state, e, choice)
        run.emit(Escalated(e.key, e.subject, choice, e.failures, tuple(e.reasons)))
        if choice == "abort":
            wait = f"wait {e.cooldown_left:.0f} s and run again for one trial rotation"
            if e.cooldown_left <= 0:
                wait = "run again for one trial rotation"
            where = "" if lane is None else "'s lane"
            return state, Stop(
                "NEEDS_HUMAN",
                f"aborted after {plural(e.failures, 'failure')} in a row on {e.subject}{where} "
                f"(circuit breaker open); partial work kept. To go on: fix the cause, then "
                f"`ralph reset` (or change the agent), or {wait}",
            )
        _, change = breakers.reset(b, f"user chose {choice}")
        if change is not None:
            self._say(Breaker(), change, lane)
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
