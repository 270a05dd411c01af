"""A run's two parts: what is fixed for it (`Shared`, frozen: all a rotation gets) and what its
scheduler keeps and changes (`RunContext`: the state, the pool, the budget of rotations)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, replace
from types import MappingProxyType
from typing import Any

from ralph.agents.command import CommandAgent
from ralph.agents.member import Member
from ralph.errors import ExitCode
from ralph.rules.pool import Pool
from ralph.rules.prompt import Mode
from ralph.rules.redact import Redactor, redactor
from ralph.rules.state import State, Tally
from ralph.rules.usage import minus
from ralph.run.escalation import Choice, Escalation
from ralph.run.events import CancelRequested, Event, RotationStarted, RunEnded, SpecRow
from ralph.run.facts import Fact
from ralph.run.interrupts import deferred_interrupts
from ralph.run.options import RunOptions
from ralph.run.question import QuestionAndAnswer
from ralph.run.recorder import Recorder
from ralph.run.sink import Emit, Sink
from ralph.store.cancel import CancelWatch
from ralph.store.runlock import RunLock
from ralph.store.state import load_state, save_state
from ralph.store.workspace import Workspace

__all__ = ["Emit", "RunContext", "Shared", "matrix_rows"]


def matrix_rows(state: State) -> tuple[SpecRow, ...]:
    return tuple(
        SpecRow(s.path, s.done_count, s.last_status, s.modified_files, s.tests) for s in state.specs
    )


@dataclass(frozen=True)
class Shared:
    """What is fixed for the run, and all that a rotation (in any thread) may use of it: the
    options, the workspace, the run lock, `ralph cancel`, the event sink, the redactor and
    the pool's members. Nothing in it changes what a rotation computes."""

    opts: RunOptions
    ws: Workspace
    lock: RunLock
    cancel: CancelWatch
    sink: Sink
    redactor: Redactor
    members: Mapping[str, Member]

    def emit(self, event: Event | Fact) -> None:
        self.sink.emit(event)


class RunContext:
    """The scheduler's own: the run's state, the pool and its current agent, the answer to
    deliver, this run's budget of rotations; and the fixed `shared` part the rotations get.
    Only the scheduler's thread reads or writes what changes here."""

    def __init__(
        self, opts: RunOptions, ws: Workspace, emit: Emit, lock: RunLock, cancel: CancelWatch
    ) -> None:
        # Every secret of every agent in the pool: whatever the run shows or records passes it.
        scrub = redactor(frozenset().union(*(m.agent.secrets() for m in opts.pool)))
        recorder = Recorder(ws, [m.name for m in opts.pool], opts.policy.rotation, scrub.text)
        sink = Sink(emit, recorder, scrub, opts.decide, opts.watch)
        members = {m.name: m for m in opts.pool}
        self.shared = Shared(opts, ws, lock, cancel, sink, scrub, MappingProxyType(members))
        self.opts, self.ws, self.lock, self.cancel = opts, ws, lock, cancel
        self.sink, self.redactor, self.recorder, self.members = sink, scrub, recorder, members
        # What changes during the run: the coordinator's alone (the scheduler's thread).
        self.pool = Pool.of(list(self.members))
        self.member: Member = opts.pool[0]  # the agent of the current (or next) rotation
        self.mode = "IMPLEMENT"  # of the current (or last) rotation
        self.state = load_state(ws.state_file)  # refuses a damaged file before anything runs
        if self.state.last_rotation == 0:  # a new or lost state file: numbers must not repeat
            self.state = replace(self.state, last_rotation=ws.last_logged_rotation())
        self.usage_at_start = self.state.usage  # budgets count what this run spends
        self.first = self.state.last_rotation  # the last number before this run
        self.limit = self.first + opts.max_iterations  # this run stops there
        self.answer: QuestionAndAnswer | None = None  # delivered with the next prompt
        cancel.on_request = lambda mode: self.emit(CancelRequested(mode))

    @property
    def agent(self) -> CommandAgent:
        return self.member.agent

    def emit(self, event: Event | Fact) -> None:
        self.sink.emit(event)

    def decide(self, e: Escalation) -> Choice:
        return self.sink.decide(e)

    def save(self) -> None:
        # never half a save: an interrupt waits for it (the atomic write leaves no temp file)
        with deferred_interrupts():
            save_state(self.ws.state_file, self.state)

    def note_run(self, **info: object) -> None:
        """run.json gets the run's news; Ctrl-C waits for the write (no stray temp file)."""
        with deferred_interrupts():
            self.lock.update(**info)

    def spent(self) -> Tally:
        """What this run has spent so far, as the agents reported it."""
        return minus(self.state.usage, self.usage_at_start)

    def number_next(self) -> int:
        """Number the next rotation (counted since the last reset, too); returns its number."""
        number = self.state.last_rotation + 1
        self.state = replace(self.state, last_rotation=number, iteration=self.state.iteration + 1)
        return number

    @property
    def exhausted(self) -> bool:
        """Has this run used its budget of rotations?"""
        return self.state.last_rotation >= self.limit

    @property
    def budget(self) -> int:
        """This run's rotations allowed (`--max-iterations`, plus a final verification's)."""
        return self.limit - self.first

    @property
    def run_iteration(self) -> int:
        """Rotations this run has numbered so far."""
        return self.state.last_rotation - self.first

    def started(
        self, agent: str, spec: str, mode: Mode, started_at: float, number: int | None = None
    ) -> RotationStarted:
        """The event of rotation `number` (default: the one just numbered), with its place in
        this run's budget."""
        number = self.state.last_rotation if number is None else number
        return RotationStarted(
            agent, spec, mode, number, number - self.first, self.budget, started_at, self.rows()
        )

    def rows(self) -> tuple[SpecRow, ...]:
        return matrix_rows(self.state)

    def costs(self) -> tuple[str | None, dict[str, Any]]:
        """Cost per spec and per verified spec, and the forecast for the open specs: a line
        for the displays and the JSON for the reports."""
        from ralph.rules.forecast import costs_json, costs_line, spec_costs

        found = spec_costs(self.state.specs)
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
            for s in self.state.specs
        }
        return costs_line(found), data

    def end(self, code: ExitCode, reason: str) -> int:
        spent = self.spent()
        costs = self.costs()[1]
        self.emit(
            RunEnded(
                int(code),
                reason,
                self.state.last_rotation,
                self.run_iteration,
                self.budget,
                self.rows(),
                spent,
                costs,
            )
        )
        return int(code)
