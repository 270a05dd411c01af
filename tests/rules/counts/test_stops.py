"""rules/counts/stops.py: what a committed outcome means for the run, stated once for both
schedulers,
in the words the run's last line gives (tests/e2e and the docs quote them)."""

from __future__ import annotations

import pytest

from ralph.errors import ExitCode
from ralph.rules.counts.stops import Stop, after_outcome, cancelled, cut_short

A = "specs/a.spec.md"


@pytest.mark.parametrize("signal", ["DONE", "CONTINUE", "ROTATE", "ERROR"])
def test_an_outcome_that_is_no_stop_lets_the_run_go_on(signal: str) -> None:
    for lanes in (False, True):
        assert after_outcome(A, signal, interrupted=False, now=False, lanes=lanes) is None


def test_a_question_stops_the_run_for_a_person_to_answer() -> None:
    stop = after_outcome(A, "QUESTION", interrupted=False, now=False, lanes=True)
    assert stop == Stop(
        "NEEDS_HUMAN",
        f"the agent has a question on {A} (.ralph/question.md): write your answer to "
        ".ralph/answer.md and run ralph again",
        question=True,
    )
    assert after_outcome(A, "QUESTION", interrupted=False, now=False, lanes=False) == stop


def test_a_stuck_agent_stops_the_run() -> None:
    stop = after_outcome(A, "STUCK", interrupted=False, now=False, lanes=False)
    assert stop == Stop("NEEDS_HUMAN", f"the agent is stuck on {A}")
    assert not stop.question


@pytest.mark.parametrize("signal", ["DONE", "QUESTION", "STUCK"])
def test_a_rotation_cut_short_stops_the_run_whatever_its_signal(signal: str) -> None:
    for now in (False, True):
        for lanes in (False, True):
            stop = after_outcome(A, signal, interrupted=True, now=now, lanes=lanes)
            assert stop == cut_short(now=now, lanes=lanes)


def test_the_words_say_how_many_rotations_were_running() -> None:
    assert cut_short(now=False, lanes=False).reason == (
        "interrupted; the rotation was recorded as ERROR"
    )
    assert cut_short(now=False, lanes=True).reason == (
        "interrupted; the lanes' rotations were recorded as ERROR"
    )
    assert cut_short(now=True, lanes=False).reason == (
        "cancelled now (ralph cancel --now): the agent was stopped and the rotation recorded "
        "as ERROR"
    )
    assert cut_short(now=True, lanes=True).reason == (
        "cancelled now (ralph cancel --now): the agents were stopped and the rotations "
        "recorded as ERROR"
    )
    assert cancelled(lanes=False).reason == (
        "cancelled (ralph cancel): stopped after the current rotation"
    )
    assert cancelled(lanes=True).reason == (
        "cancelled (ralph cancel): stopped after the running rotations"
    )


def test_each_code_is_an_exit_code_of_the_contract() -> None:
    stops = [cut_short(now=True, lanes=True), cancelled(lanes=False)]
    stops += [
        after_outcome(A, s, interrupted=False, now=False, lanes=False) or stops[0]
        for s in ("QUESTION", "STUCK")
    ]
    codes = {ExitCode[stop.code] for stop in stops}
    assert codes == {ExitCode.INTERRUPTED, ExitCode.NEEDS_HUMAN}


def test_checks_that_could_not_run_end_the_run_with_their_line() -> None:
    stop = after_outcome(
        "a.spec.md", "ERROR", False, "the package index cannot be reached", now=False, lanes=False
    )
    assert stop is not None and stop.code == "ERROR"
    assert stop.reason == "the package index cannot be reached"
    # control: the same signal without it goes on (a failed rotation is the breaker's)
    assert after_outcome("a.spec.md", "ERROR", False, None, now=False, lanes=False) is None
