"""`ralph run`: the run over rotations, from the first scan to the end; each part lives apart
(seats, circuit, rotation, verification, recorder) and shares the one RunContext."""

from __future__ import annotations

import threading
import time
from dataclasses import replace

from ralph.checks.bar import start_bars
from ralph.checks.gate import DoneGate
from ralph.checks.specset import take_person_specs
from ralph.errors import ExitCode
from ralph.rules.caps import mark_blocked
from ralph.rules.matrix import Rescan, reconcile
from ralph.rules.pool import Exhausted, Wait
from ralph.rules.prompt import Mode
from ralph.rules.schedule import next_spec, selected_done
from ralph.rules.spec import Spec
from ralph.rules.specset import summary
from ralph.rules.state import State
from ralph.rules.usage import over_budget
from ralph.rules.words import plural
from ralph.run.circuit import Circuit
from ralph.run.context import RunContext
from ralph.run.convergence import Convergence
from ralph.run.events import CostsUpdated, Notice, PoolChanged, RunStarted
from ralph.run.facts import QuestionAsked, SpecBlocked
from ralph.run.fold import fold
from ralph.run.question import answered, pending, shown, write_fallback_question
from ralph.run.rotation import Rotation
from ralph.run.seats import Seats
from ralph.run.tree import Tree, changed_since_last_run
from ralph.run.turn import Outcome, Place, Turn
from ralph.run.verification import Verification
from ralph.specs.discovery import discover_specs
from ralph.store.files import read_text
from ralph.store.snapshot import Snapshot

STOPPING = {"STUCK": "the agent is stuck", "QUESTION": "the agent has a question"}


class SpecRun:
    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.tree = Tree(ctx.opts.root, ctx.ws.snapshot_file, ctx.opts.own_files)
        self.seats = Seats(ctx)
        self.circuit = Circuit(ctx)
        place = Place(ctx.opts.root, ctx.ws.prompt_file, ctx.ws.current_log, ctx.note_run,
                      ctx.lock.record_agent)  # fmt: skip
        # The judge of semantic checks: another agent of the pool than the coder, when it has one.
        self.gate = DoneGate(ctx.opts.root, ctx.ws, self.seats.reviewer, lambda r: None,
                             ctx.opts.test_globs)  # fmt: skip
        self.convergence = Convergence(ctx)
        self.rotation = Rotation(ctx.shared, place, self.tree, self.gate)
        self.gate.record = self.rotation.record  # what a judge spent joins the outcome
        self.verification = Verification(ctx, self.rotation, self.circuit, self.seats, self.gate)

    def discover(self, templates: list[str] | None = None) -> list[Spec]:
        """The specs as the run works on them (SpecError when every spec was removed)."""
        return discover_specs(self.ctx.opts.root, templates)

    def rescan(self) -> tuple[list[Spec], tuple[str, ...]]:
        specs = self.discover()
        scan = reconcile(self.ctx.state, specs)
        self.ctx.state = scan.state
        self.report(scan, added=True)
        return specs, scan.added

    def report(self, scan: Rescan, *, added: bool) -> None:
        emit = self.ctx.emit
        if added:
            for path in scan.added:
                emit(Notice("info", f"new spec: {path}"))
        for path in scan.removed:
            emit(Notice("info", f"spec removed: {path}"))
        for path in scan.modified:
            emit(Notice("warning", f"spec changed: {path} goes back to 0/3"))

    def begin(self) -> tuple[list[Spec], Snapshot]:
        """The run's start: the matrix brought up to date, changes made while ralph was not
        running, the run announced; the tree the first rotation starts from."""
        ctx, opts = self.ctx, self.ctx.opts
        templates: list[str] = []
        specs = self.discover(templates)
        had_specs = bool(ctx.state.specs)
        scan = reconcile(ctx.state, specs)
        ctx.state = scan.state
        before = self.tree.take()
        ctx.state, dropped, moved = self.tree.compare_with_last_run(ctx.state, before)
        ctx.state, held = take_person_specs(ctx.state, opts.root, moved)
        ctx.state = replace(ctx.state, max_iteration=ctx.budget)
        ctx.save()
        self.tree.save(before, self.tree.hidden)
        edited, taken = self.gate.start_tests(specs)  # the tests a person left: the baseline
        self.gate.changed = lambda: self.tree.snapshotter.diff(before, self.tree.take()).paths
        ctx.emit(RunStarted(opts.label, ctx.state.last_rotation, ctx.budget, ctx.rows()))
        wanted = [s for s in specs if not opts.only or s.path in opts.only]  # the tests' bar:
        ctx.state = start_bars(self.gate, wanted, ctx.state, tests_edited=bool(edited) and taken,
                               cancel=ctx.cancel.now,  # `ralph cancel --now` stops it too
                               notify=lambda line: ctx.emit(Notice("info", line)))  # fmt: skip
        ctx.save()
        if edited:
            more = f" and {len(edited) - 5} more" if len(edited) > 5 else ""
            shown = ", ".join(edited[:5]) + more
            if taken:
                ctx.emit(Notice("info", f"tests edited while ralph was not running: {shown}"))
            else:
                why = "changed after a run that was killed: not taken as a person's edit"
                ctx.emit(Notice("warning", f"tests {why} ({shown}); accept with `ralph accept`"))
        if len(ctx.members) > 1:
            ctx.emit(PoolChanged(ctx.pool.seats))
        self.report(scan, added=had_specs)
        for template in templates:
            ctx.emit(
                Notice(
                    "warning",
                    f"{template} is still the template `ralph init` wrote, so it is not run: "
                    "describe what you want built there, or delete it",
                )
            )
        if dropped:
            ctx.emit(Notice("warning", changed_since_last_run(moved, dropped)))
        if held:
            ctx.emit(
                Notice(
                    "warning",
                    f"the specs a person wrote wait for a person: {summary(held)}; DONEs are "
                    "refused until a person restores them or accepts it with `ralph accept`",
                )
            )
        held = self.tree.pending_rules()
        if held:
            ctx.emit(
                Notice(
                    "warning",
                    f"the ignore rules differ from the ones a person set: {held[0]}; "
                    "DONEs are refused until a person accepts them with `ralph accept`",
                )
            )
        return specs, before

    def run(self) -> int:
        ctx, opts = self.ctx, self.ctx.opts
        specs, before = self.begin()
        stop = self._take_answer()
        if stop is not None:
            return stop

        current: str | None = None
        switch = False
        new: tuple[str, ...] = ()
        first = True
        while True:
            tick = time.perf_counter()
            if not first:
                specs, new = self.rescan()
            first = False
            if opts.only and not ctx.state.complete and selected_done(ctx.state, opts.only):
                return ctx.end(ExitCode.OK, selected_reason(ctx.state, opts.only))
            if ctx.state.complete:
                code, before = self.verification.complete(specs, before)
                if code is not None:
                    return code
                current, switch, new = None, False, ()  # the failed verification's findings
                continue
            if ctx.cancel.requested:
                return ctx.end(
                    ExitCode.INTERRUPTED,
                    "cancelled (ralph cancel): stopped after the current rotation",
                )
            if ctx.exhausted:
                return ctx.end(
                    ExitCode.MAX_ITERATIONS,
                    f"max iterations reached ({plural(opts.max_iterations, 'rotation')} this run)",
                )
            reason = over_budget(ctx.spent(), opts.max_cost, opts.max_tokens)
            if reason is not None:
                return ctx.end(ExitCode.MAX_ITERATIONS, reason)
            runnable = self._unblocked(specs)
            path = next_spec(runnable, ctx.state, current, switch=switch, new=new)
            if path is None:  # every spec that needs work is at an iteration cap
                return ctx.end(ExitCode.MAX_ITERATIONS, self._blocked_reason())
            spec = next(s for s in specs if s.path == path)
            choice = self.seats.choose(spec)
            if isinstance(choice, Wait):
                stopped = self.seats.wait(choice)
                if stopped is not None:
                    return stopped
                continue  # re-scan and choose again: specs may have changed meanwhile
            if isinstance(choice, Exhausted):
                self.seats.exhausted(choice)  # raises: with no agent left, there is nothing to ask
            stop = self.circuit.admit()
            if stop is not None:
                return stop
            self.seats.use(choice)
            outcome, before = self.rotation(
                self.turn(spec, tick, ctx.cancel.now), before, self.record
            )
            signal_ = outcome.signal
            if outcome.interrupted:
                if ctx.cancel.now.is_set():
                    return ctx.end(
                        ExitCode.INTERRUPTED,
                        "cancelled now (ralph cancel --now): the agent was stopped and the "
                        "rotation recorded as ERROR",
                    )
                return ctx.end(
                    ExitCode.INTERRUPTED, "interrupted; the rotation was recorded as ERROR"
                )
            self.seats.settle(outcome)
            self.convergence.feed(path, outcome.mode, outcome.changes.paths)
            ctx.emit(CostsUpdated(*ctx.costs()))
            if signal_ == "QUESTION":
                return self._stop_for_question(path)
            if signal_ in STOPPING:
                return ctx.end(ExitCode.NEEDS_HUMAN, f"{STOPPING[signal_]} on {path}")
            stop = self.circuit.escalate_if_open() or self.convergence.escalate_if_stuck(path)
            if stop is not None:
                return stop
            current = path
            switch = signal_ == "DONE" and not outcome.changed

    def turn(self, spec: Spec, tick: float, stop: threading.Event) -> Turn:
        """The next rotation of `spec`, numbered (and saved: the number is taken even if ralph
        dies during it), with the agent the pool chose and the answer it delivers."""
        ctx = self.ctx
        row = ctx.state.get(spec.path)
        assert row is not None
        mode: Mode = "IMPLEMENT" if row.done_count == 0 else "REVIEW"
        ctx.mode = mode  # whose work a semantic check's judge then judges
        iteration = ctx.number_next()
        if stop is ctx.cancel.now:  # the project's own tree: its current spec
            ctx.state = replace(ctx.state, current_spec=spec.path)
        ctx.save()
        answer, ctx.answer = ctx.answer, None  # delivered with this rotation's prompt
        return Turn(
            *(spec, mode, ctx.agent, iteration, ctx.state, answer),
            *(ctx.first, ctx.limit, tick, stop),
        )

    def record(self, outcome: Outcome) -> tuple[Outcome, Snapshot]:
        """Fold a rotation's outcome into the run's state, save it, then say so; the caller
        holds interrupts. Returns the tree the next rotation starts from."""
        ctx, budget = self.ctx, outcome.budget
        with budget.operation("bookkeeping"):
            ctx.state, downgraded = fold(ctx.state, outcome)
            self.circuit.feed_outcome(outcome)
        with budget.operation("state_save"):
            ctx.save()
        after = self.rotation.report(outcome, ctx.state, downgraded)
        self.circuit.announce()  # "circuit breaker open" after the line that opened it
        return outcome, after

    def _unblocked(self, specs: list[Spec]) -> list[Spec]:
        """The specs that may run: those at an iteration cap of their front matter are
        recorded as blocked (for `ralph status`) and skipped; the others go on."""
        ctx = self.ctx
        for error in self.gate.new_errors(specs):
            ctx.emit(Notice("warning", f"{error}: its DONEs are refused until it is fixed"))
        blocked = self.gate.blocked(specs, ctx.state)
        marked = mark_blocked(ctx.state, blocked)
        if marked != ctx.state:
            before = {s.path: s.blocked for s in ctx.state.specs}
            ctx.state = marked
            ctx.save()
            for path, reason in blocked.items():
                if before.get(path) != reason:  # newly stopped: say so once
                    ctx.emit(Notice("warning", f"{path} stopped: {reason}"))
                    ctx.emit(SpecBlocked(path, reason))
        only = ctx.opts.only
        return [s for s in specs if s.path not in blocked and (not only or s.path in only)]

    def _blocked_reason(self) -> str:
        blocked = [f"{s.path} ({s.blocked})" for s in self.ctx.state.specs if s.blocked]
        return "iteration cap reached: " + ", ".join(blocked)

    def _take_answer(self) -> int | None:
        """A pending question: with an answer it goes into the next prompt; without one the
        run stops before starting any agent (it would only be asked again)."""
        ctx = self.ctx
        question = pending(ctx.ws)
        if question is None:
            return None
        ctx.answer = answered(ctx.ws)
        if ctx.answer is not None:
            ctx.emit(Notice("info", "passing your answer (.ralph/answer.md) to the agent"))
            return None
        ctx.emit(Notice("warning", "question waiting for an answer:\n" + shown(question)))
        return ctx.end(
            ExitCode.NEEDS_HUMAN,
            "a question is waiting for your answer in .ralph/question.md: write it to "
            ".ralph/answer.md and run again (or delete .ralph/question.md to go on without)",
        )

    def _stop_for_question(self, path: str) -> int:
        ctx = self.ctx
        output = read_text(ctx.ws.current_log)
        if write_fallback_question(ctx.ws, path, output):
            ctx.emit(
                Notice("warning", "the agent did not write .ralph/question.md; saved its output")
            )
        question = pending(ctx.ws) or ""
        ctx.emit(QuestionAsked(path))
        ctx.emit(Notice("warning", f"question from the agent on {path}:\n" + shown(question)))
        return ctx.end(
            ExitCode.NEEDS_HUMAN,
            f"the agent has a question on {path} (.ralph/question.md): write your answer to "
            ".ralph/answer.md and run ralph again",
        )


def selected_reason(state: State, only: tuple[str, ...]) -> str:
    waiting = sum(1 for s in state.specs if s.needs_work and s.path not in only)
    return (
        f"the selected specs are verified (3/3): {', '.join(only)}; {waiting} other spec(s) "
        "still need work, and the final verification waits for every spec"
    )
