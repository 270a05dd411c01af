"""The run's agent pool: who takes the next rotation, waiting for a rate limit to reset,
benching or evicting an agent after its rotation, and stopping when no agent is left."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, NoReturn

from ralph.agents.command import CommandAgent
from ralph.agents.result import LimitInfo
from ralph.errors import AgentError, AgentsExhausted, ExitCode
from ralph.rules.agents.limits import park_until
from ralph.rules.agents.pool import (
    Choice,
    Exhausted,
    Pool,
    Wait,
    after_rotation,
    choose,
    clock,
    describe,
    park,
    release_due,
)
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import State
from ralph.rules.text.words import plural
from ralph.run.context import Shared
from ralph.run.events import Notice, PoolChanged, Waiting
from ralph.run.facts import LimitsSeen, WaitStarted

if TYPE_CHECKING:
    from ralph.run.turn import Outcome

WAIT_TICK = 60.0  # seconds between countdown events while waiting for a rate limit to reset
AUTH_HINT = (
    "log the agent in (or fix its API key or configuration: run it once by hand to see), "
    "then run ralph again"
)
ROOT_HINT = (
    'set IS_SANDBOX=1 in agent.env (ralph.yaml: agent: {env: {IS_SANDBOX: "1"}}) if this machine '
    "is a sandbox, or run ralph as a user other than root"
)


def auth_hint(message: str) -> str:
    """What to do about an agent that refused to run: Claude Code's refusal to skip its
    permission prompts as root is not a login problem."""
    if "root/sudo" in message or "IS_SANDBOX" in message:
        return ROOT_HINT
    return AUTH_HINT


class Seats:
    """The pool's moves, on the pool the scheduler passes: each returns the new pool."""

    def __init__(self, run: Shared) -> None:
        self.run = run

    def choose(self, pool: Pool, state: State, spec: Spec) -> tuple[Pool, Choice]:
        """The agent for the next rotation of `spec`, or a wait, or why the run must stop;
        with the pool once the limits that reset meanwhile are released."""
        row = state.get(spec.path)
        review = row is not None and row.done_count > 0
        avoid = row.last_changed_by if row is not None else None
        now = time.time()
        released = release_due(pool, now)
        if released != pool:
            pool = released
            self.changed(pool)
        return pool, choose(pool, self.run.opts.policy, now, review=review, avoid=avoid)

    def reviewer(
        self, pool: Pool, coder: CommandAgent, coder_mode: str, mode: str = "JUDGE"
    ) -> CommandAgent:
        """The agent that judges a semantic check (or runs the final verification, `mode`
        VERIFY): another available agent of the pool than `coder`, whose work (done in
        `coder_mode`) is judged, one running another vendor's model first, when there is one
        (the pool's rotation is not moved)."""
        from ralph.rules.agents.vendor import other_vendor_first

        members, now = self.run.members, time.time()
        others = [
            (s.name, members[s.name].agent.vendor(mode))
            for s in pool.seats
            if s.available(now) and s.name != coder.name
        ]
        ranked = other_vendor_first(others, coder.vendor(coder_mode))
        return members[ranked[0]].agent if ranked else coder

    def exhausted(self, state: State, out: Exhausted) -> NoReturn:
        """Stop the run: every agent is out. Recorded like any end, then raised as the error
        the user sees (exit 4 with when to retry, or exit 1 when every agent was evicted)."""
        if out.evicted:
            self.run.end(state, ExitCode.ERROR, out.reason)
            raise AgentError(
                out.reason,
                "see the agents' logs under .ralph/history/, fix what fails, then run again",
            )
        retry = f"after {clock(out.retry_at, time.time())}" if out.retry_at is not None else "later"
        self.run.end(state, ExitCode.AGENTS_EXHAUSTED, f"{out.reason}; retry {retry}")
        raise AgentsExhausted(out.reason, f"run ralph again {retry}")

    def wait(self, state: State, wait: Wait) -> int | None:
        """Sleep until an agent's limit resets, telling the displays; Ctrl-C ends the run."""
        # The worklog's record comes last: whoever sees it can rely on the display's line and
        # on run.json saying the run waits.
        run = self.run
        next_tick = time.time() + WAIT_TICK
        try:
            run.emit(Waiting(wait.until, wait.reason))
            run.note_run(waiting_until=wait.until, current_spec=None)
            run.emit(WaitStarted(wait.until, wait.reason))
            while (left := wait.until - time.time()) > 0:
                if run.cancel.requested:  # `ralph cancel`, with or without --now
                    return run.end(
                        state,
                        ExitCode.INTERRUPTED,
                        "cancelled (ralph cancel) while waiting for a rate limit to reset",
                    )
                time.sleep(min(left, 0.5))
                if time.time() >= next_tick and wait.until - time.time() > 0:
                    run.emit(Waiting(wait.until, wait.reason))
                    next_tick += WAIT_TICK
            run.note_run(waiting_until=None)
        except KeyboardInterrupt:
            return run.end(
                state, ExitCode.INTERRUPTED, "interrupted while waiting for a rate limit to reset"
            )
        return None

    def settle(self, pool: Pool, state: State, outcome: Outcome) -> Pool:
        """The pool after the rotation: bench a rate-limited agent, count or clear failures,
        evict after too many; an auth error ends the run (it would fail every time)."""
        run = self.run
        result, name, now = outcome.result, outcome.agent, time.time()
        fault = result.fault
        if fault is not None and fault.kind == "auth":
            reason = f"{name}: {fault.message}"
            run.end(state, ExitCode.ERROR, f"auth or configuration error from {reason}")
            raise AgentError(f"{name} refused to run: {fault.message}", auth_hint(fault.message))
        policy = run.opts.policy
        if fault is not None and fault.kind == "rate_limit":
            pool = after_rotation(
                pool,
                policy,
                name,
                "rate_limited",
                now,
                resets_at=fault.resets_at,
                reason=fault.message,
                short=fault.short,
                window=fault.window,
            )
            seat = pool.seat(name)
            run.emit(Notice("warning", f"{describe(seat, time.time())}: {fault.message}"))
        elif fault is None and result.failure is not None:  # an overflow is not a crash
            pool = after_rotation(pool, policy, name, "failed", now, reason=result.failure)
            seat = pool.seat(name)
            if seat.evicted:
                run.emit(
                    Notice(
                        "warning",
                        f"{name} leaves the pool after {plural(seat.failures, 'failed rotation')} "
                        f"in a row (last: {result.failure})",
                    )
                )
        else:
            pool = after_rotation(pool, policy, name, "ok", now)
        if result.limits:
            run.emit(LimitsSeen(name, result.limits))
            if fault is None or fault.kind != "rate_limit":
                pool = self._park(pool, name, result.limits, now)
        self.changed(pool)
        return pool

    def _park(self, pool: Pool, name: str, limits: tuple[LimitInfo, ...], now: float) -> Pool:
        """Park an agent whose window reached `limits.pause_at` until that window resets,
        before it runs into a hard refusal."""
        pause_at = self.run.opts.policy.pause_at
        due = park_until(limits, pause_at, now)
        if due is None or due.resets_at is None:
            return pool
        used = f"{due.utilization * 100:.0f}%" if due.utilization is not None else "exhausted"
        reason = f"its {due.window} window is at {used}"
        pool = park(pool, name, due.resets_at, due.window, reason)
        self.run.emit(
            Notice(
                "warning",
                f"{name} parked until {clock(due.resets_at, now)}: {reason} "
                f"(limits.pause_at {pause_at:g}%)",
            )
        )
        return pool

    def changed(self, pool: Pool) -> None:
        run = self.run
        run.note_run(
            pool=[
                {"name": s.name, "status": describe(s, time.time()), "failures": s.failures}
                for s in pool.seats
            ]
        )
        if len(run.members) > 1 or any(not s.available(time.time()) for s in pool.seats):
            run.emit(PoolChanged(pool.seats))
