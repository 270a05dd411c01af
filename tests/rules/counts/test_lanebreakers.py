"""rules/counts/lanebreakers.py: each lane's own breaker, kept by its spec's path in the state, and
which lanes it pauses."""

from __future__ import annotations

from ralph.rules.counts.breaker import HALF_OPEN, OPEN, Breaker
from ralph.rules.counts.lanebreakers import breaker_of, lane_breaker, paused, with_lane_breaker
from ralph.rules.counts.state import SpecState, State, state_to_json
from ralph.store.records.state import state_from_json

A, B = "specs/a.spec.md", "specs/b.spec.md"
OPENED = Breaker(OPEN, failures=3, opened_at=1000.0, reasons=("r",), subject=A, agents="x")


def test_a_lane_s_breaker_is_its_own_and_the_run_s_is_untouched() -> None:
    state = with_lane_breaker(State(specs=(SpecState(A), SpecState(B))), A, OPENED)
    assert lane_breaker(state, A) == OPENED
    assert lane_breaker(state, B) == Breaker()  # another lane: closed
    assert state.breaker == Breaker()  # the run's: one spec at a time, the verification
    assert breaker_of(state, A) == OPENED and breaker_of(state, None) == Breaker()
    closed = with_lane_breaker(state, A, Breaker())
    assert closed.lane_breakers == ()  # a closed breaker with no failure is not kept


def test_an_open_lane_is_paused_until_its_cooldown_is_over_or_the_agents_change() -> None:
    state = with_lane_breaker(State(specs=(SpecState(A), SpecState(B))), A, OPENED)
    assert paused(state, [A, B], now=1010.0, cooldown=300.0, agents="x") == [A]
    assert paused(state, [A, B], now=1400.0, cooldown=300.0, agents="x") == []  # its trial
    assert paused(state, [A, B], now=1010.0, cooldown=300.0, agents="y") == []  # mended
    trial = with_lane_breaker(state, A, Breaker(HALF_OPEN, failures=3))
    assert paused(trial, [A], now=1010.0, cooldown=300.0, agents="x") == []


def test_the_lanes_breakers_are_saved_and_read_back() -> None:
    state = with_lane_breaker(State(specs=(SpecState(A),)), A, OPENED)
    saved = state_to_json(state)
    assert saved["lane_breakers"][A]["state"] == OPEN
    assert state_from_json(saved).lane_breakers == ((A, OPENED),)
    assert "lane_breakers" not in state_to_json(State())  # a state without lanes: as before
