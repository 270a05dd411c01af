"""What is fixed for a run (`Shared`, frozen): the options, the workspace, the lock, the
event sink, the number the run started from. The state, the pool and every other value that
changes during the run are its scheduler's own (run/loop.py, run/lanes.py): the parts of a
run get them as parameters and return the new ones, never writing them anywhere shared."""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Any

from ralph.agents.member import Member
from ralph.errors import ExitCode
from ralph.rules.counts.state import State, Tally
from ralph.rules.counts.usage import minus, over_budget
from ralph.rules.text.prompt import Mode
from ralph.rules.text.redact import Redactor, redactor
from ralph.rules.text.words import plural
from ralph.run.escalation import Choice, Escalation
from ralph.run.events import CancelRequested, Event, RotationStarted, RunEnded, matrix_rows
from ralph.run.facts import Fact
from ralph.run.interrupts import deferred_interrupts
from ralph.run.options import RunOptions
from ralph.run.recorder import Recorder
from ralph.run.sink import Emit, Sink
from ralph.store.disk.workspace import Workspace
from ralph.store.live.cancel import CancelWatch
from ralph.store.live.runlock import RunLock
from ralph.store.records.runs import killed_run
from ralph.store.records.state import load_state
from ralph.store.repository.git import GitLock

__all__ = ["STEADY", "Emit", "Shared", "SteadyClock", "open_run"]


@dataclass(frozen=True)
class SteadyClock:
    """The run's clock (the breaker's): epoch seconds from the wall clock read once (`wall`,
    as `monotonic` read `start`), then moved on by the monotonic clock only, so a wall clock
    stepped during the run (NTP, a VM resumed, a person) moves no cooldown; what is read back
    from an earlier run is clamped by the rules (rules/counts/breaker.py)."""

    wall: float
    start: float
    monotonic: Callable[[], float] = time.monotonic

    def __call__(self) -> float:
        return self.wall + (self.monotonic() - self.start)


STEADY = SteadyClock(time.time(), time.monotonic())  # from ralph's start


@dataclass(frozen=True)
class Shared:
    """What is fixed for the run, and all that any part of it (in any thread) shares: the
    options, the workspace, the run lock, `ralph cancel`, the event sink, the redactor, the
    pool's members, and where this run's numbering and spending started. Nothing in it
    changes; what it computes from a state, it gets that state as a parameter."""

    opts: RunOptions
    ws: Workspace
    lock: RunLock
    cancel: CancelWatch
    sink: Sink
    redactor: Redactor
    members: Mapping[str, Member]
    first: int  # the last rotation number before this run
    usage_at_start: Tally  # budgets count what this run spends
    # Held by every git command of the run (its trees, its lanes, its checks' rooms): one lock,
    # passed to each place that finds a repository.
    git: GitLock = field(default_factory=GitLock)
    clock: SteadyClock = STEADY  # the breaker's time and each outcome's end: a value, given

    def emit(self, event: Event | Fact) -> None:
        self.sink.emit(event)

    def decide(self, e: Escalation) -> Choice:
        return self.sink.decide(e)

    def note_run(self, **info: object) -> None:
        """run.json gets the run's news; Ctrl-C waits for the write (no stray temp file)."""
        with deferred_interrupts():
            self.lock.update(**info)

    # ------------------------------------------------------------------ this run's budget

    def budget(self, state: State) -> int:
        """This run's rotations allowed (`--max-iterations`, plus a final verification's):
        the run records it in the state as it starts (run/loop.py) and when it grows."""
        asked = self.opts.settings.max_iterations
        return asked if state.max_iteration is None else state.max_iteration

    def limit(self, state: State) -> int:
        """The last rotation number this run allows."""
        return self.first + self.budget(state)

    def exhausted(self, state: State) -> bool:
        """Has this run used its budget of rotations?"""
        return state.last_rotation >= self.limit(state)

    def run_iteration(self, state: State) -> int:
        """Rotations this run has numbered so far."""
        return state.last_rotation - self.first

    def out_of_budget(self, state: State) -> str | None:
        """Why this run may start no other rotation (its rotations used, or the money or tokens
        it may spend, as the agents reported them); None: it may."""
        if self.exhausted(state):
            n = plural(self.opts.settings.max_iterations, "rotation")
            return f"max iterations reached ({n} this run)"
        spent, asked = minus(state.usage, self.usage_at_start), self.opts.settings
        return over_budget(spent, asked.max_cost, asked.max_tokens)

    def started(
        self,
        state: State,
        agent: str,
        spec: str,
        mode: Mode,
        started_at: float,
        number: int | None = None,
    ) -> RotationStarted:
        """The event of rotation `number` (default: the one just numbered), with its place in
        this run's budget."""
        number = state.last_rotation if number is None else number
        return RotationStarted(
            agent,
            spec,
            mode,
            number,
            number - self.first,
            self.budget(state),
            started_at,
            matrix_rows(state),
        )

    def costs(self, state: State) -> tuple[str | None, dict[str, Any]]:
        """Cost per spec and per verified spec, and the forecast for the open specs: a line
        for the displays and the JSON for the reports."""
        from ralph.rules.counts.forecast import costs_json, costs_line, spec_costs

        found = spec_costs(state.specs)
        data = costs_json(found)
        data["per_spec"] = {
            s.path: {
                "calls": s.usage.rotations,
                "input_tokens": s.usage.input_tokens,
                "output_tokens": s.usage.output_tokens,
                "cost_usd": round(s.usage.cost_usd, 6)
                if s.usage.rotations > s.usage.unpriced
                else None,
            }
            for s in state.specs
        }
        return costs_line(found), data

    def end(self, state: State, code: ExitCode, reason: str) -> int:
        """The run ends with `code`: said once, with `state` as it ends, and the run's numbers
        as its records tell them (the same function every report uses)."""
        from ralph.rules.counts.runtotals import run_totals

        totals = run_totals(self.sink.recorder.records, now=time.time())
        self.emit(
            RunEnded(
                int(code),
                reason,
                state.last_rotation,
                self.run_iteration(state),
                self.budget(state),
                matrix_rows(state),
                totals.usage,
                self.costs(state)[1],
                totals,
            )
        )
        return int(code)


def open_run(
    opts: RunOptions, ws: Workspace, emit: Emit, lock: RunLock, cancel: CancelWatch
) -> tuple[Shared, State]:
    """The run's fixed part, and the state it starts from (a damaged state file is refused
    before anything runs)."""
    # Every secret of every agent in the pool: whatever the run shows or records passes it.
    scrub = redactor(frozenset().union(opts.secrets, *(m.agent.secrets() for m in opts.pool)))
    # `--continue` of a run that was killed goes on with that run: its numbers are this one's
    earlier = killed_run(ws.worklog) if opts.continues else []
    names = [m.name for m in opts.pool]
    recorder = Recorder(ws, names, opts.policy.rotation, scrub.text, earlier)
    sink = Sink(emit, recorder, scrub, opts.decide, opts.observers, opts.watch)
    members = MappingProxyType({m.name: m for m in opts.pool})
    state = load_state(ws.state_file)
    if state.last_rotation == 0:  # a new or lost state file: numbers must not repeat
        state = replace(state, last_rotation=ws.last_logged_rotation())
    shared = Shared(opts, ws, lock, cancel, sink, scrub, members, state.last_rotation, state.usage)
    cancel.on_request = lambda mode: shared.emit(CancelRequested(mode))
    return shared, state
