"""What every part of a run shares: the options, the workspace, the state and the one `emit`."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from ralph.agents.command import CommandAgent
from ralph.agents.member import Member
from ralph.agents.result import AgentResult
from ralph.checks.records import GateRecord, JudgeSpent
from ralph.errors import ExitCode
from ralph.rules.pool import Pool
from ralph.rules.prompt import Mode
from ralph.rules.redact import redactor
from ralph.rules.state import State, Tally
from ralph.rules.usage import minus, record_usage
from ralph.run.events import AgentOutput, CancelRequested, Event, RotationStarted, RunEnded, SpecRow
from ralph.run.facts import FACTS, Fact
from ralph.run.interrupts import deferred_interrupts
from ralph.run.options import RunOptions
from ralph.run.question import QuestionAndAnswer
from ralph.run.recorder import Recorder
from ralph.store.cancel import CancelWatch
from ralph.store.runlock import RunLock
from ralph.store.snapshot import Changes
from ralph.store.state import load_state, save_state
from ralph.store.workspace import Workspace

Emit = Callable[[Event], None]


def matrix_rows(state: State) -> tuple[SpecRow, ...]:
    return tuple(
        SpecRow(s.path, s.done_count, s.last_status, s.modified_files, s.tests) for s in state.specs
    )


class RunContext:
    """The run's shared, changing facts (the state, the pool, the current agent); the parts
    of the run (seats, circuit, rotation, verification) each hold this one object."""

    def __init__(
        self, opts: RunOptions, ws: Workspace, emit: Emit, lock: RunLock, cancel: CancelWatch
    ) -> None:
        self.opts = opts
        self.ws = ws
        self.lock = lock
        self.cancel = cancel
        self._display: Emit | None = emit
        # Every secret of every agent in the pool: whatever the run shows or records passes it.
        self.redactor = redactor(frozenset().union(*(m.agent.secrets() for m in opts.pool)))
        self.recorder = Recorder(
            ws, [m.name for m in opts.pool], opts.policy.rotation, self.redactor.text
        )
        self.members = {m.name: m for m in opts.pool}
        self.pool = Pool.of(list(self.members))
        self.member: Member = opts.pool[0]  # the agent of the current (or next) rotation
        self.last_result: AgentResult | None = None  # of the last rotation, for the pool
        self.mode = "IMPLEMENT"  # of the current (or last) rotation
        self.last_changes: Changes | None = None  # the files the last rotation changed
        self.state = load_state(ws.state_file)  # refuses a damaged file before anything runs
        if self.state.last_rotation == 0:  # a new or lost state file: numbers must not repeat
            self.state = replace(self.state, last_rotation=ws.last_logged_rotation())
        self.usage_at_start = self.state.usage  # budgets count what this run spends
        self.first = self.state.last_rotation  # the last number before this run
        self.limit = self.first + opts.max_iterations  # this run stops there
        self.answer: QuestionAndAnswer | None = None  # delivered with the next prompt
        # `ralph cancel` is seen by the cancel watch's thread: its event waits for the lock
        self._emitting = threading.RLock()
        self.ended = False  # RunEnded was emitted
        cancel.on_request = lambda mode: self.emit(CancelRequested(mode))

    @property
    def agent(self) -> CommandAgent:
        return self.member.agent

    def emit(self, event: Event | Fact) -> None:
        """Show the event, then record it: whoever reads a record can rely on the display's
        line. Facts only the recorder needs never reach a display. A display that can no
        longer write (the terminal was closed, a pipe reader went away) is dropped rather
        than allowed to stop the run. Secrets are redacted first (agent output already was,
        where it entered ralph)."""
        if not isinstance(event, AgentOutput):
            event = self.redactor.scrub(event)
        with self._emitting:
            if isinstance(event, CancelRequested) and self.ended:
                return  # a request seen as the run ended: nothing left to stop
            self.ended = self.ended or isinstance(event, RunEnded)
            if self._display is not None and not isinstance(event, FACTS):
                try:
                    self._display(event)
                except OSError:
                    self._display = None
            self.recorder.handle(event)
            if self.opts.watch is not None and isinstance(event, FACTS):
                with contextlib.suppress(Exception):  # a watcher never changes the run
                    self.opts.watch(event)

    def gate_record(self, record: GateRecord) -> None:
        """What the DONE gate did: recorded; a judge's call also counts in the usage (the run's,
        its agent's and the spec's), so `--max-cost` and `--max-tokens` see it."""
        if isinstance(record, JudgeSpent):
            self.state = record_usage(self.state, record.spec, record.agent, record.usage)
        self.emit(record)

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

    def started(self, agent: str, spec: str, mode: Mode, started_at: float) -> RotationStarted:
        """The event of the rotation just numbered, with its place in this run's budget."""
        s = self.state
        return RotationStarted(
            agent, spec, mode, s.last_rotation, self.run_iteration, self.budget, started_at,
            self.rows(),
        )  # fmt: skip

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
