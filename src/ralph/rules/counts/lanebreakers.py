"""Each lane's own circuit breaker (`ralph run --parallel`): a lane's failures in a row open
its breaker and pause that lane only; the other lanes go on. The run ends on the breakers
only when no lane can go on (every spec that needs work paused), and then a person is asked
about one paused lane at a time, as one spec at a time asks about the run's breaker.

Pure: the breakers are values in the state (`State.lane_breakers`, by spec path)."""

from __future__ import annotations

from dataclasses import replace

from ralph.rules.counts.breaker import OPEN, Breaker, admit
from ralph.rules.counts.state import State


def lane_breaker(state: State, spec: str) -> Breaker:
    """The breaker of `spec`'s lane (closed until its lane first fails)."""
    return next((b for path, b in state.lane_breakers if path == spec), Breaker())


def breaker_of(state: State, lane: str | None) -> Breaker:
    """The breaker a rotation's outcome moves: its lane's (`lane`: the spec of a lane's
    rotation), or the run's (None: one spec at a time)."""
    return state.breaker if lane is None else lane_breaker(state, lane)


def with_lane_breaker(state: State, spec: str, breaker: Breaker) -> State:
    """The state with `spec`'s lane breaker; a closed one with no failure is not kept."""
    others = tuple((path, b) for path, b in state.lane_breakers if path != spec)
    kept = others if breaker == Breaker() else (*others, (spec, breaker))
    return replace(state, lane_breakers=kept)


def paused(
    state: State, specs: list[str], *, now: float, cooldown: float, agents: str | None
) -> list[str]:
    """The specs among `specs` whose lane may not start a rotation now: its breaker open and
    cooling down (one whose cooldown is over, or that opened under other agents, lets a trial
    through: rules/breaker.admit)."""
    return [
        spec
        for spec in specs
        if lane_breaker(state, spec).state == OPEN
        and not admit(lane_breaker(state, spec), now=now, cooldown=cooldown, agents=agents)[1]
    ]
