"""The pool's rules (pure): rotation policies, fresh eyes, benching, eviction, wait or stop."""

from __future__ import annotations

import json

import pytest

from ralph.agents.claude import ClaudeAgent
from ralph.rules.agents.pool import (
    Exhausted,
    Pick,
    Pool,
    PoolPolicy,
    Wait,
    after_rotation,
    choose,
    clock,
    describe,
    release_due,
)
from tests.agent_helpers import replay

NOW = 1_000_000.0
RR = PoolPolicy()
FALLBACK = PoolPolicy(rotation="fallback")


def picks(pool: Pool, policy: PoolPolicy, n: int, **kw: object) -> list[str]:
    names = []
    for _ in range(n):
        choice = choose(pool, policy, NOW, review=bool(kw.get("review")), avoid=None)
        assert isinstance(choice, Pick)
        names.append(choice.name)
        pool = choice.pool
    return names


def test_round_robin_takes_the_agents_in_turn() -> None:
    assert picks(Pool.of(["a", "b", "c"]), RR, 7) == ["a", "b", "c", "a", "b", "c", "a"]


def test_fallback_always_takes_the_first_available_agent() -> None:
    pool = Pool.of(["a", "b", "c"])
    assert picks(pool, FALLBACK, 3) == ["a", "a", "a"]
    pool = after_rotation(pool, FALLBACK, "a", "rate_limited", NOW, resets_at=NOW + 60)
    assert picks(pool, FALLBACK, 2) == ["b", "b"]
    # a is back once its reset time has passed
    back = choose(release_due(pool, NOW + 61), FALLBACK, NOW + 61, review=False, avoid=None)
    assert isinstance(back, Pick) and back.name == "a"


def test_round_robin_skips_a_benched_agent_and_comes_back_to_it() -> None:
    pool = Pool.of(["a", "b", "c"])
    pool = after_rotation(pool, RR, "b", "rate_limited", NOW, resets_at=NOW + 60)
    assert picks(pool, RR, 4) == ["a", "c", "a", "c"]


@pytest.mark.parametrize("policy", [RR, FALLBACK], ids=["round-robin", "fallback"])
def test_review_prefers_an_agent_other_than_the_last_to_change_files(policy: PoolPolicy) -> None:
    pool = Pool.of(["a", "b"])
    for cursor in (0, 1):
        start = Pool(pool.seats, cursor)
        choice = choose(start, policy, NOW, review=True, avoid="a")
        assert isinstance(choice, Pick) and choice.name == "b"
        choice = choose(start, policy, NOW, review=True, avoid="b")
        assert isinstance(choice, Pick) and choice.name == "a"


def test_fresh_eyes_applies_only_to_review_and_can_be_turned_off() -> None:
    pool = Pool.of(["a", "b"])
    implement = choose(pool, FALLBACK, NOW, review=False, avoid="a")
    assert isinstance(implement, Pick) and implement.name == "a"
    off = PoolPolicy(rotation="fallback", fresh_eyes=False)
    review = choose(pool, off, NOW, review=True, avoid="a")
    assert isinstance(review, Pick) and review.name == "a"


def test_review_takes_the_same_agent_when_it_is_the_only_one_available() -> None:
    pool = Pool.of(["a", "b"])
    pool = after_rotation(pool, RR, "b", "rate_limited", NOW, resets_at=NOW + 60)
    choice = choose(pool, RR, NOW, review=True, avoid="a")
    assert isinstance(choice, Pick) and choice.name == "a"
    alone = choose(Pool.of(["a"]), RR, NOW, review=True, avoid="a")
    assert isinstance(alone, Pick) and alone.name == "a"


def test_a_rate_limit_benches_until_the_reset_time_or_for_the_backoff() -> None:
    policy = PoolPolicy(backoff=120)
    pool = Pool.of(["a", "b"])
    pool = after_rotation(pool, policy, "a", "rate_limited", NOW, resets_at=NOW + 3600)
    assert pool.seat("a").benched_until == NOW + 3600 and pool.seat("a").reset_known
    pool = after_rotation(pool, policy, "b", "rate_limited", NOW, resets_at=None)
    assert pool.seat("b").benched_until == NOW + 120 and not pool.seat("b").reset_known
    # a reset time already past: the limit lifted while the agent exited; retried within
    # seconds (a's second limit in a row: 2 s), never a reason to give up
    pool = after_rotation(pool, policy, "a", "rate_limited", NOW, resets_at=NOW - 5)
    assert pool.seat("a").benched_until == NOW + 2 and pool.seat("a").reset_known


def test_a_short_limit_is_retried_after_its_delay_doubling_then_the_ordinary_backoff() -> None:
    policy = PoolPolicy(backoff=900, short_backoff=10, short_retries=3)
    pool = Pool.of(["a"])
    benched = []
    for _ in range(4):
        pool = after_rotation(pool, policy, "a", "rate_limited", NOW, short=True)
        seat = pool.seat("a")
        assert seat.benched_until is not None
        benched.append((seat.benched_until - NOW, seat.reset_known))
    # waited for (a known, near return), not exit 4 with a time 15 minutes away
    assert benched == [(10, True), (20, True), (40, True), (900, False)]
    assert isinstance(
        choose(
            after_rotation(Pool.of(["a"]), policy, "a", "rate_limited", NOW, short=True),
            policy,
            NOW,
            review=False,
            avoid=None,
        ),
        Wait,
    )
    # a rotation that got through clears the count
    pool = after_rotation(pool, policy, "a", "ok", NOW)
    pool = after_rotation(pool, policy, "a", "rate_limited", NOW, short=True)
    assert pool.seat("a").benched_until == NOW + 10


def test_a_short_limit_with_retry_after_waits_that_long_and_retry_after_0_a_second() -> None:
    policy = PoolPolicy(short_backoff=10)
    pool = after_rotation(
        Pool.of(["a"]), policy, "a", "rate_limited", NOW, resets_at=NOW + 3, short=True
    )
    assert pool.seat("a").benched_until == NOW + 3 and pool.seat("a").reset_known
    pool = after_rotation(
        Pool.of(["a"]), policy, "a", "rate_limited", NOW, resets_at=NOW + 0, short=True
    )
    assert pool.seat("a").benched_until == NOW + 1 and pool.seat("a").reset_known


def test_nobody_available_with_a_known_reset_waits_for_the_earliest_return() -> None:
    policy = PoolPolicy(backoff=600)
    pool = Pool.of(["a", "b"])
    pool = after_rotation(pool, policy, "a", "rate_limited", NOW, resets_at=NOW + 3000)
    pool = after_rotation(pool, policy, "b", "rate_limited", NOW, resets_at=None)
    choice = choose(pool, policy, NOW, review=False, avoid=None)
    assert isinstance(choice, Wait)
    assert choice.until == NOW + 600  # b's back-off ends first: try it then
    assert "rate-limited" in choice.reason


def test_nobody_available_and_no_reset_time_known_is_exhausted_with_a_retry_time() -> None:
    policy = PoolPolicy(backoff=600)
    pool = after_rotation(Pool.of(["a"]), policy, "a", "rate_limited", NOW, resets_at=None)
    choice = choose(pool, policy, NOW, review=False, avoid=None)
    assert isinstance(choice, Exhausted)
    assert not choice.evicted
    assert choice.retry_at == NOW + 600


def test_a_reset_further_away_than_max_wait_is_exhausted_not_a_wait() -> None:
    policy = PoolPolicy(max_wait=3600)
    far = after_rotation(Pool.of(["a"]), policy, "a", "rate_limited", NOW, resets_at=NOW + 7200)
    choice = choose(far, policy, NOW, review=False, avoid=None)
    assert isinstance(choice, Exhausted) and choice.retry_at == NOW + 7200
    near = after_rotation(Pool.of(["a"]), policy, "a", "rate_limited", NOW, resets_at=NOW + 3600)
    assert isinstance(choose(near, policy, NOW, review=False, avoid=None), Wait)


def test_a_far_reset_and_a_guessed_backoff_are_not_worth_waiting_for() -> None:
    policy = PoolPolicy(max_wait=3600, backoff=600)
    pool = Pool.of(["a", "b"])
    pool = after_rotation(pool, policy, "a", "rate_limited", NOW, resets_at=NOW + 86400 * 30)
    pool = after_rotation(pool, policy, "b", "rate_limited", NOW)
    choice = choose(pool, policy, NOW, review=False, avoid=None)
    assert isinstance(choice, Exhausted) and not choice.evicted
    assert choice.retry_at == NOW + 600  # b's back-off is the first chance to try again


def test_failures_in_a_row_evict_and_a_good_rotation_clears_the_count() -> None:
    policy = PoolPolicy(max_failures=2)
    pool = Pool.of(["a", "b"])
    pool = after_rotation(pool, policy, "a", "failed", NOW, reason="exit code 1")
    pool = after_rotation(pool, policy, "a", "ok", NOW)
    pool = after_rotation(pool, policy, "a", "failed", NOW, reason="exit code 1")
    assert not pool.seat("a").evicted and pool.seat("a").failures == 1
    pool = after_rotation(pool, policy, "a", "failed", NOW, reason="exit code 2")
    assert pool.seat("a").evicted
    assert picks(pool, policy, 3) == ["b", "b", "b"]
    # an evicted agent never comes back during the run, however long it waits
    later = release_due(pool, NOW + 10**6)
    assert picks(later, policy, 2) == ["b", "b"]


def test_max_failures_none_never_evicts() -> None:
    policy = PoolPolicy(max_failures=None)
    pool = Pool.of(["a"])
    for _ in range(50):
        pool = after_rotation(pool, policy, "a", "failed", NOW, reason="boom")
    assert not pool.seat("a").evicted


def test_every_agent_evicted_is_exhausted_as_an_error_naming_why() -> None:
    policy = PoolPolicy(max_failures=1)
    pool = Pool.of(["a", "b"])
    pool = after_rotation(pool, policy, "a", "failed", NOW, reason="exit code 1")
    pool = after_rotation(pool, policy, "b", "failed", NOW, reason="timed out after 5 s")
    choice = choose(pool, policy, NOW, review=False, avoid=None)
    assert isinstance(choice, Exhausted) and choice.evicted
    assert "a: exit code 1" in choice.reason and "b: timed out" in choice.reason


def test_evicted_and_benched_without_reset_time_is_a_rate_limit_stop() -> None:
    policy = PoolPolicy(max_failures=1)
    pool = Pool.of(["a", "b"])
    pool = after_rotation(pool, policy, "a", "failed", NOW, reason="exit code 1")
    pool = after_rotation(pool, policy, "b", "rate_limited", NOW)
    choice = choose(pool, policy, NOW, review=False, avoid=None)
    assert isinstance(choice, Exhausted) and not choice.evicted


def test_a_pool_needs_unique_names() -> None:
    with pytest.raises(ValueError, match="unique"):
        Pool.of(["a", "a"])
    with pytest.raises(ValueError, match="at least one"):
        Pool.of([])


def test_times_in_messages_carry_the_day_when_it_is_not_today() -> None:
    import time

    noon = time.mktime((2030, 1, 7, 12, 0, 0, 0, 0, -1))  # a Monday, local time
    assert clock(noon + 3600, noon) == "13:00"
    assert clock(noon + 3 * 86400, noon) == "Thu 10 Jan 12:00"  # a weekly limit
    seat = after_rotation(Pool.of(["a"]), RR, "a", "rate_limited", noon, resets_at=noon + 86400)
    assert describe(seat.seat("a"), noon) == "a until Tue 08 Jan 12:00"


def test_a_weekly_window_is_waited_for_only_with_wait_for_reset() -> None:
    reset = NOW + 3600
    for wait_for_reset, expected in ((False, Exhausted), (True, Wait)):
        policy = PoolPolicy(wait_for_reset=wait_for_reset)
        pool = after_rotation(
            Pool.of(["claude"]),
            policy,
            "claude",
            "rate_limited",
            NOW,
            resets_at=reset,
            window="weekly",
        )
        choice = choose(pool, policy, NOW, review=False, avoid=None)
        assert isinstance(choice, expected)
        when = choice.retry_at if isinstance(choice, Exhausted) else choice.until
        assert when == reset  # the exact time to come back
    # a session window is waited for as before
    policy = PoolPolicy()
    pool = after_rotation(
        Pool.of(["claude"]),
        policy,
        "claude",
        "rate_limited",
        NOW,
        resets_at=reset,
        window="session",
    )
    assert isinstance(choose(pool, policy, NOW, review=False, avoid=None), Wait)


def test_claude_code_rate_limit_events_become_windows() -> None:
    events = [
        {"type": "system", "subtype": "init", "model": "m"},
        {
            "type": "rate_limit_event",
            "rate_limit_info": {
                "status": "allowed_warning",
                "resetsAt": NOW + 600,
                "rateLimitType": "five_hour",
                "utilization": 0.92,
            },
        },
        {
            "type": "rate_limit_event",
            "rate_limit_info": {
                "status": "allowed",
                "resetsAt": NOW + 86400,
                "rateLimitType": "seven_day",
                "utilization": 41,
            },
        },
        {"type": "result", "subtype": "success", "is_error": False, "result": "ok", "usage": {}},
    ]
    out = "".join(json.dumps(e) + "\n" for e in events).encode()
    result, _ = replay(ClaudeAgent(), out)
    assert [(lim.window, lim.utilization, lim.status) for lim in result.limits] == [
        ("session", 0.92, "allowed_warning"),
        ("weekly", 0.41, "allowed"),  # a percentage is read as one
    ]
