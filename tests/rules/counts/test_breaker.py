"""The circuit breaker, transition by transition (100 % line and branch coverage, `make test`)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from ralph.rules.counts import breaker as b
from ralph.rules.counts.breaker import (
    CLOSED,
    DEFAULT_COOLDOWN,
    DEFAULT_THRESHOLD,
    HALF_OPEN,
    KEPT_REASONS,
    OPEN,
    Breaker,
    Transition,
    admit,
    cooldown_left,
    opened,
    record,
    reset,
)


def fail(b: Breaker, now: float = 100.0, threshold: int = 3, why: str = "x") -> Breaker:
    return record(b, success=False, now=now, threshold=threshold, reason=why, subject="s")[0]


def test_initial_state_is_closed_with_the_seed_defaults() -> None:
    b = Breaker()
    assert (b.state, b.failures, b.opened_at) == (CLOSED, 0, None)
    assert (DEFAULT_THRESHOLD, DEFAULT_COOLDOWN) == (3, 300.0)
    assert admit(b, now=0, cooldown=300) == (b, True, None)


def test_a_failure_increments_the_count_and_keeps_the_reason() -> None:
    b, change = record(Breaker(), success=False, now=1, threshold=3, reason="boom", subject="a")
    assert change is None
    assert (b.state, b.failures, b.reasons, b.subject) == (CLOSED, 1, ("boom",), "a")


def test_a_success_resets_the_count() -> None:
    b = fail(fail(Breaker()))
    after, change = record(b, success=True, now=2, threshold=3)
    assert after == Breaker()
    assert change is None  # it was closed: no transition


def test_a_success_on_another_subject_does_not_reset_the_count() -> None:
    b = fail(fail(Breaker()))  # subject "s"
    same, change = record(b, success=True, now=2, threshold=3, subject="other")
    assert (same, change) == (b, None)
    assert record(b, success=True, now=2, threshold=3, subject="s")[0] == Breaker()
    assert fail(same).state == OPEN


def test_three_consecutive_failures_open_it() -> None:
    b = fail(fail(Breaker()))
    opened, change = record(b, success=False, now=50, threshold=3, reason="third")
    assert change == Transition(CLOSED, OPEN, "3 failures in a row")
    assert (opened.state, opened.failures, opened.opened_at) == (OPEN, 3, 50)


def test_the_threshold_is_configurable() -> None:
    assert fail(Breaker(), threshold=1).state == OPEN
    b = Breaker()
    for _ in range(4):
        b = fail(b, threshold=5)
    assert b.state == CLOSED
    assert fail(b, threshold=5).state == OPEN


def test_an_open_breaker_refuses_until_the_cooldown_is_over_then_allows_one_trial() -> None:
    b = fail(fail(fail(Breaker(), now=0), now=0), now=0)
    assert b.state == OPEN
    assert admit(b, now=299.9, cooldown=300) == (b, False, None)
    assert cooldown_left(b, now=100, cooldown=300) == pytest.approx(200)
    trial, allowed, change = admit(b, now=300, cooldown=300)
    assert allowed is True
    assert trial.state == HALF_OPEN
    assert change == Transition(OPEN, HALF_OPEN, "cooldown over")
    assert cooldown_left(trial, now=300, cooldown=300) == 0
    # a half-open breaker lets the trial run
    assert admit(trial, now=301, cooldown=300) == (trial, True, None)


def test_another_agent_configuration_gets_its_trial_at_once() -> None:
    b = Breaker()
    for _ in range(3):
        b = record(b, success=False, now=0, threshold=3, reason="x", subject="s", agents="A")[0]
    assert (b.state, b.agents) == (OPEN, "A")
    # the same agents, or none known: the cooldown holds
    assert admit(b, now=10, cooldown=300, agents="A") == (b, False, None)
    assert admit(b, now=10, cooldown=300) == (b, False, None)
    assert admit(Breaker(OPEN, 3, 0.0), now=10, cooldown=300, agents="B")[1] is False
    # other agents (a fixed one, another CLI): one trial now
    trial, allowed, change = admit(b, now=10, cooldown=300, agents="B")
    assert (trial.state, allowed) == (HALF_OPEN, True)
    assert change == Transition(OPEN, HALF_OPEN, "the agent configuration changed")
    # its failure opens the breaker again under the new agents
    again = record(trial, success=False, now=20, threshold=3, agents="B")[0]
    assert (again.state, again.opened_at, again.agents) == (OPEN, 20, "B")
    assert admit(again, now=30, cooldown=300, agents="B")[1] is False


def test_the_trial_succeeding_closes_it() -> None:
    half = Breaker(HALF_OPEN, 3, 0.0, ("x",), "s")
    after, change = record(half, success=True, now=400, threshold=3)
    assert after == Breaker()
    assert change == Transition(HALF_OPEN, CLOSED, "success")


def test_the_trial_failing_opens_it_again_with_a_new_cooldown() -> None:
    half = Breaker(HALF_OPEN, 3, 0.0, ("x",), "s")
    after, change = record(half, success=False, now=400, threshold=3, reason="again")
    assert change == Transition(HALF_OPEN, OPEN, "the trial failed")
    assert (after.state, after.failures, after.opened_at) == (OPEN, 4, 400)
    assert admit(after, now=500, cooldown=300)[1] is False


def test_a_failure_while_open_keeps_it_open_and_counts() -> None:
    b = Breaker(OPEN, 3, 10.0, (), "s")
    after, change = record(b, success=False, now=20, threshold=3, reason="more")
    assert change is None
    assert (after.state, after.failures, after.opened_at) == (OPEN, 4, 10.0)


def test_only_the_latest_reasons_are_kept() -> None:
    b = Breaker()
    for i in range(KEPT_REASONS + 3):
        b = fail(b, threshold=100, why=f"r{i}")
    assert b.reasons == tuple(f"r{i}" for i in range(3, KEPT_REASONS + 3))


def test_cooldown_of_a_closed_breaker_or_one_with_no_open_time_is_zero() -> None:
    assert cooldown_left(Breaker(), now=5, cooldown=300) == 0
    assert cooldown_left(Breaker(OPEN, 3, None), now=5, cooldown=300) == 0


def test_reset_by_a_human_closes_it() -> None:
    b = Breaker(OPEN, 3, 10.0, ("x",), "s")
    after, change = reset(b, "user: accept")
    assert after == Breaker()
    assert change == Transition(OPEN, CLOSED, "user: accept")
    assert reset(fail(Breaker()), "user") == (Breaker(), None)


def test_a_clock_stepped_back_never_makes_the_cooldown_longer_than_itself() -> None:
    year = 365 * 24 * 3600.0
    b = Breaker(OPEN, 3, opened_at=1_000 + year)  # opened, then the clock went back a year
    assert cooldown_left(b, now=1_000, cooldown=300) == 300
    assert admit(b, now=1_000, cooldown=300)[1] is False  # still one cooldown to wait, no more


def test_an_outcome_that_opens_the_breaker_is_told_apart_from_one_while_open() -> None:
    """`opened` is what asks a person: the failure that opened the breaker (from closed, or
    a failed trial) asks; a later failure while it stays open (another lane's) asks again no
    one; a failure that leaves it closed asks no one."""
    closed = fail(fail(Breaker()))
    now_open = fail(closed)
    assert opened(closed, now_open)
    assert not opened(now_open, fail(now_open))  # a failure while open: no new opening
    assert not opened(Breaker(), closed)  # two failures: still closed
    trial = admit(now_open, now=1e6, cooldown=DEFAULT_COOLDOWN)[0]
    assert trial.state == HALF_OPEN
    assert opened(trial, fail(trial, now=1e6))  # the failed trial opens it again
    assert not opened(now_open, reset(now_open, "person")[0])


def test_a_move_is_read_from_the_breaker_before_and_after_an_outcome() -> None:
    closed = b.Breaker()
    two = b.Breaker(failures=2, subject="s")
    opened, change = b.record(two, success=False, now=1.0, threshold=3, subject="s")
    assert b.moved(two, opened) == change == b.Transition("CLOSED", "OPEN", "3 failures in a row")
    trial = replace(opened, state="HALF_OPEN")
    again, change = b.record(trial, success=False, now=2.0, threshold=3, subject="s")
    assert b.moved(trial, again) == change == b.Transition("HALF_OPEN", "OPEN", "the trial failed")
    assert b.moved(trial, closed) == b.Transition("HALF_OPEN", "CLOSED", "success")
    assert b.moved(two, two) is None and b.moved(opened, again) is None  # the control


def test_after_rotation_counts_failures_and_not_a_stopped_rotation() -> None:
    rule = b.Rule(threshold=2, agents="fp")

    def after(before: Breaker, signal: str, interrupted: bool = False) -> Breaker:
        return b.after_rotation(
            before,
            rule,
            signal=signal,
            note=None,
            iteration=4,
            spec="s",
            interrupted=interrupted,
            now=9.0,
        )

    one = after(b.Breaker(), "REFUSED")
    assert (one.failures, one.reasons) == (1, ("rotation 4 on s: REFUSED",))
    two = after(one, "ERROR")
    assert (two.state, two.agents, two.opened_at) == ("OPEN", "fp", 9.0)
    assert after(one, "ERROR", interrupted=True) == one
    assert after(one, "DONE") == b.Breaker()
