"""run/seats.py: the pool's moves on the run's pool, in-process (the agents never run: the
pool only hears of their outcomes). Who takes the next rotation, the reviewer, the end when
every agent is out, the wait for a reset, and the pool after a rotation; each beside its
control."""

from __future__ import annotations

import os
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

import pytest

from ralph.agents.command import CommandAgent
from ralph.agents.member import Member
from ralph.agents.result import AgentFault, AgentResult, LimitInfo
from ralph.errors import AgentError, AgentsExhausted, ExitCode
from ralph.process.request import ProcessResult
from ralph.rules.agents.pool import Exhausted, Pick, Pool, PoolPolicy, Seat, Wait
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import SpecState, State
from ralph.run.context import open_run
from ralph.run.events import Event, Notice, PoolChanged, RunEnded, Waiting
from ralph.run.facts import Fact
from ralph.run.seats import AUTH_HINT, ROOT_HINT, Seats, auth_hint
from ralph.run.tree import Taken
from ralph.run.turn import Outcome
from ralph.store.disk.workspace import Workspace
from ralph.store.live.cancel import CancelWatch, request_cancel
from ralph.store.live.runlock import RunLock
from ralph.store.snapshots.snapshot import Changes
from tests.conftest import Project
from tests.run.test_options import run_options

A = "specs/a.spec.md"
SPEC = Spec(A, "# a\n", "h")


@contextmanager
def seats(
    project: Project, *agents: CommandAgent, **policy: Any
) -> Iterator[tuple[Seats, list[Event | Fact]]]:
    agents = agents or (CommandAgent("a", ["a"]),)
    opts = run_options(project.root, tuple(Member(a) for a in agents), policy=PoolPolicy(**policy))
    ws = Workspace(project.root)
    ws.ensure()
    events: list[Event | Fact] = []
    with RunLock(ws.dir, agent="a") as lock, CancelWatch(ws.dir) as cancel:
        run, _ = open_run(opts, ws, events.append, lock, cancel)
        yield Seats(run), events


def agent(name: str, model: str | None = None) -> CommandAgent:
    return CommandAgent(name, [name], model=model)


def outcome(name: str, exit_code: int = 0, **result: Any) -> Outcome:
    process = ProcessResult(exit_code, b"", b"", 0, 0, 0.0, 1.0, False, False, False)
    return Outcome(
        *(A, "IMPLEMENT", name, 1, "CONTINUE", None, False),
        AgentResult(process, None, **result),
        *(Taken(None, Changes(()), {}, None), None, None, None, 1.0),
    )


def of(events: list[Event | Fact], kind: type) -> list[Any]:
    return [e for e in events if isinstance(e, kind)]


def test_claude_s_refusal_as_root_is_not_a_login_problem() -> None:
    assert auth_hint("--dangerously-skip-permissions cannot be used with root/sudo") == ROOT_HINT
    assert auth_hint("Invalid API key · Please run /login") == AUTH_HINT


def test_a_review_goes_to_another_agent_than_the_one_that_changed_the_files(
    project: Project,
) -> None:
    with seats(project, agent("a"), agent("b")) as (pool_of, _):
        pool = Pool.of(["a", "b"])
        reviewed = State(specs=(SpecState(A, done_count=1, last_changed_by="a"),))
        _, review = pool_of.choose(pool, reviewed, SPEC)
        fresh = State(specs=(SpecState(A, done_count=0, last_changed_by="a"),))
        _, implement = pool_of.choose(pool, fresh, SPEC)  # the control: not a review
    assert isinstance(review, Pick) and review.name == "b"
    assert isinstance(implement, Pick) and implement.name == "a"


def test_a_limit_that_reset_is_released_and_said(project: Project) -> None:
    with seats(project, agent("a"), agent("b")) as (pool_of, events):
        past = Pool((Seat("a", benched_until=time.time() - 1, reset_known=True), Seat("b")))
        pool, choice = pool_of.choose(past, State(), SPEC)
        assert pool.seat("a").benched_until is None and isinstance(choice, Pick)
        assert len(of(events, PoolChanged)) == 1
        assert pool_of.run.lock.info["pool"][0]["name"] == "a"
        later = Pool((Seat("a", benched_until=time.time() + 3600, reset_known=True), Seat("b")))
        kept, wait = pool_of.choose(later, State(), SPEC)  # the control: not yet due
    assert kept == later and isinstance(wait, Pick) and wait.name == "b"
    assert len(of(events, PoolChanged)) == 1


def test_the_reviewer_is_another_available_agent_another_vendor_s_first(project: Project) -> None:
    coder = agent("a", "claude-sonnet-4")
    pool_agents = (coder, agent("b", "claude-opus-4"), agent("c", "gpt-5"))
    with seats(project, *pool_agents) as (pool_of, _):
        pool = Pool.of(["a", "b", "c"])
        assert pool_of.reviewer(pool, coder, "IMPLEMENT").name == "c"
        c_out = pool._with(replace(pool.seat("c"), evicted=True))
        assert pool_of.reviewer(c_out, coder, "IMPLEMENT").name == "b"
        alone = c_out._with(replace(pool.seat("b"), benched_until=time.time() + 3600))
        assert pool_of.reviewer(alone, coder, "IMPLEMENT") is coder  # nobody else: the coder


def test_every_agent_evicted_ends_the_run_with_an_error(project: Project) -> None:
    with seats(project) as (pool_of, events), pytest.raises(AgentError) as raised:
        pool_of.exhausted(State(), Exhausted(True, None, "every agent was evicted"))
    assert "fix what fails" in str(raised.value.hint)
    [end] = of(events, RunEnded)
    assert (end.exit_code, end.reason) == (int(ExitCode.ERROR), "every agent was evicted")


def test_every_agent_rate_limited_ends_the_run_saying_when_to_retry(project: Project) -> None:
    retry = time.time() + 7200
    with seats(project) as (pool_of, events), pytest.raises(AgentsExhausted) as raised:
        pool_of.exhausted(State(), Exhausted(False, retry, "every agent is rate limited"))
    assert "run ralph again after" in str(raised.value.hint)
    [end] = of(events, RunEnded)
    assert end.exit_code == int(ExitCode.AGENTS_EXHAUSTED)
    assert end.reason.startswith("every agent is rate limited; retry after")


def test_ralph_cancel_ends_a_wait_for_a_reset(project: Project) -> None:
    with seats(project) as (pool_of, events):
        request_cancel(pool_of.run.ws.dir, os.getpid(), "after")
        # seen before the first sleep; a wait that missed it would end after 5 s, not exit 130
        code = pool_of.wait(State(), Wait(time.time() + 5, "a is rate limited"))
    assert code == int(ExitCode.INTERRUPTED)
    assert of(events, Waiting)[0].reason == "a is rate limited"
    assert "while waiting for a rate limit to reset" in of(events, RunEnded)[0].reason


def test_a_wait_that_is_over_goes_on(project: Project) -> None:
    with seats(project) as (pool_of, events):
        assert pool_of.wait(State(), Wait(time.time() - 1, "a is rate limited")) is None
        assert pool_of.run.lock.info["waiting_until"] is None
    assert of(events, RunEnded) == []  # the control of the cancel above: the run goes on


def test_an_auth_error_ends_the_run_at_once(project: Project) -> None:
    refused = AgentFault("auth", "Claude Code cannot run as root/sudo")
    with seats(project) as (pool_of, events), pytest.raises(AgentError) as raised:
        pool_of.settle(Pool.of(["a"]), State(), outcome("a", 1, fault=refused))
    assert raised.value.hint == ROOT_HINT
    [end] = of(events, RunEnded)
    assert end.exit_code == int(ExitCode.ERROR) and "auth or configuration error" in end.reason


def test_a_rate_limited_agent_is_benched_and_said(project: Project) -> None:
    limited = AgentFault("rate_limit", "usage limit reached", resets_at=time.time() + 3600)
    with seats(project) as (pool_of, events):
        pool = pool_of.settle(Pool.of(["a"]), State(), outcome("a", 1, fault=limited))
        ok = pool_of.settle(pool, State(), outcome("a"))  # the control: a good rotation
    assert not pool.seat("a").available(time.time())
    assert ok.seat("a") == Seat("a")
    [warning] = of(events, Notice)
    assert warning.level == "warning" and warning.message.endswith(": usage limit reached")


def test_an_agent_leaves_the_pool_after_its_failures_in_a_row(project: Project) -> None:
    with seats(project, max_failures=2) as (pool_of, events):
        once = pool_of.settle(Pool.of(["a"]), State(), outcome("a", 3))
        assert (once.seat("a").failures, once.seat("a").evicted) == (1, False)
        assert of(events, Notice) == []  # the control: one failure is counted, not said
        twice = pool_of.settle(once, State(), outcome("a", 3))
    assert twice.seat("a").evicted
    [notice] = of(events, Notice)
    assert (
        notice.message == "a leaves the pool after 2 failed rotations in a row (last: exit code 3)"
    )


def test_an_agent_is_parked_when_a_window_reaches_pause_at(project: Project) -> None:
    reset = time.time() + 3600
    near = (LimitInfo("weekly", utilization=0.95, resets_at=reset),)
    below = (LimitInfo("weekly", utilization=0.5, resets_at=reset),)
    with seats(project, pause_at=90.0) as (pool_of, events):
        calm = pool_of.settle(Pool.of(["a"]), State(), outcome("a", limits=below))
        assert calm.seat("a").available(time.time())  # the control: below pause_at
        parked = pool_of.settle(calm, State(), outcome("a", limits=near))
    assert parked.seat("a").benched_until == reset and parked.seat("a").window == "weekly"
    [notice] = of(events, Notice)
    assert "its weekly window is at 95% (limits.pause_at 90%)" in notice.message


def test_a_pool_of_one_ready_agent_draws_no_pool_panel(project: Project) -> None:
    with seats(project) as (pool_of, events):
        pool_of.changed(Pool.of(["a"]))
        assert of(events, PoolChanged) == []
        assert pool_of.run.lock.info["pool"] == [{"name": "a", "status": "a ready", "failures": 0}]
    with seats(project, agent("a"), agent("b")) as (pool_of, events):
        pool_of.changed(Pool.of(["a", "b"]))  # the control: a pool of two is shown
        assert len(of(events, PoolChanged)) == 1
