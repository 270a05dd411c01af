"""`ralph run` one spec at a time: the sequential scheduler, from the first scan to the end.
Each part lives apart (seats, circuit, rotation, verification, recorder) and shares only the
run's fixed `Shared`; the run's state, the pool and the agent of the next rotation are this
scheduler's own, passed to the parts and folded back from what they return."""

from __future__ import annotations

import threading
import time
from dataclasses import replace
from functools import partial

from ralph.agents.command import CommandAgent
from ralph.agents.member import Member
from ralph.checks.bar import start_bars
from ralph.checks.gate import DoneGate
from ralph.checks.specset import take_person_specs
from ralph.errors import ExitCode
from ralph.rules.agents.pool import Exhausted, Pick, Pool, Wait
from ralph.rules.counts.breaker import Breaker
from ralph.rules.counts.caps import mark_blocked
from ralph.rules.counts.lanebreakers import breaker_of
from ralph.rules.counts.matrix import Rescan, reconcile
from ralph.rules.counts.schedule import next_spec, selected_done
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import State, number_next
from ralph.rules.counts.stops import Stop, after_outcome, cancelled
from ralph.rules.text.prompt import Mode
from ralph.run import ledger, opening
from ralph.run.circuit import Circuit
from ralph.run.context import Shared
from ralph.run.convergence import Convergence
from ralph.run.events import CostsUpdated, Notice, PoolChanged, RunStarted, matrix_rows
from ralph.run.facts import SpecBlocked
from ralph.run.fold import fold
from ralph.run.interrupts import deferred_interrupts
from ralph.run.question import QuestionAndAnswer, answered, ask, pending, shown
from ralph.run.rotation import Rotation
from ralph.run.seats import Seats
from ralph.run.tree import Tree
from ralph.run.turn import Attempt, Outcome, Place, Turn
from ralph.run.verification import Verification
from ralph.specs.discovery import discover_specs
from ralph.store.snapshots.snapshot import Snapshot


class SpecRun:
    lanes = False  # the words of the run's stops (rules/counts/stops.py): one rotation at a time

    def __init__(self, run: Shared, state: State) -> None:
        self.shared = run
        # The scheduler's own values: only its thread reads or writes them.
        self.statefile = ledger.StateFile(run.ws.state_file)  # the one writer of state.json
        self._state = state  # as loaded: saved once it changes
        self.pool = Pool.of(list(run.members))
        self.member: Member = run.opts.pool[0]  # the agent of the current (or next) rotation
        self.mode: Mode = "IMPLEMENT"  # of the current (or last) rotation
        self.answer: QuestionAndAnswer | None = None  # delivered with the next prompt
        self.tree = Tree(run.opts.root, run.ws.snapshot_file, run.opts.own_files, run.git)
        self.seats = Seats(run)
        self.circuit = Circuit(run)
        opts, ws, lock = run.opts, run.ws, run.lock
        place = Place(opts.root, ws.prompt_file, ws.current_log, run.note_run, lock.record_agent)
        # The judge of semantic checks: another agent of the pool than the coder, when it has one.
        self.convergence = Convergence(run)
        gate = partial(
            DoneGate,
            opts.root,
            ws,
            changed=self.tree.changed,
            test_globs=opts.test_globs,
            project=opts.config,
            launcher=opts.launcher,
            lock=run.git,
        )
        self.rotation = Rotation(run, place, self.tree, gate)
        self.gate = self.rotation.gate
        self.verification = Verification(
            run, self.rotation, self.circuit, self.statefile, self.reviewer
        )

    def reviewer(self, mode: str = "JUDGE") -> CommandAgent:
        """Another agent of the pool than the current rotation's, by the pool as it is now."""
        return self.seats.reviewer(self.pool, self.member.agent, self.mode, mode)

    def end(self, code: ExitCode, reason: str) -> int:
        return self.shared.end(self.state, code, reason)

    @property
    def state(self) -> State:
        return self._state

    @state.setter
    def state(self, state: State) -> None:
        """The one place the scheduler's state is saved: as it changes, whoever returned it (a
        fold, the breaker, the merger); StateFile writes a state only when it differs."""
        self._state = state
        self.statefile.save(state)

    def discover(self, templates: list[str] | None = None) -> list[Spec]:
        """The specs as the run works on them (SpecError when every spec was removed)."""
        return discover_specs(self.shared.opts.root, templates)

    def rescan(self) -> tuple[list[Spec], tuple[str, ...]]:
        specs = self.discover()
        scan = reconcile(self.state, specs)
        self.state = scan.state
        self.report(scan, added=True)
        return specs, scan.added

    def report(self, scan: Rescan, *, added: bool) -> None:
        emit = self.shared.emit
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
        run, opts = self.shared, self.shared.opts
        templates: list[str] = []
        specs = self.discover(templates)
        had_specs = bool(self.state.specs)
        scan = reconcile(self.state, specs)
        state = scan.state
        before = self.tree.begin()
        state, dropped, moved = self.tree.compare_with_last_run(state, before)
        state, held = take_person_specs(state, opts.root, moved)
        # this run's budget of rotations, recorded: `Shared.budget` reads it from here
        self.state = replace(state, max_iteration=opts.settings.max_iterations)
        self.tree.save(before, self.tree.hidden)
        edited, taken = self.gate.start_tests(specs)  # the tests a person left: the baseline
        budget = run.budget(self.state)
        run.emit(RunStarted(opts.label, self.state.last_rotation, budget, matrix_rows(self.state)))
        only = opts.settings.spec
        wanted = [s for s in specs if not only or s.path in only]  # the tests' bar:
        self.state = start_bars(
            self.gate,
            wanted,
            self.state,
            tests_edited=bool(edited) and taken,
            cancel=run.cancel.now,  # `ralph cancel --now` stops it too
            notify=lambda line: run.emit(Notice("info", line)),
        )
        for notice in opening.tests_notices(edited, taken, self.gate.place.notes):
            run.emit(notice)
        if len(run.members) > 1:
            run.emit(PoolChanged(self.pool.seats))
        self.report(scan, added=had_specs)
        pending = self.tree.pending_rules()
        for notice in opening.spec_notices(templates, moved, dropped, held, pending):
            run.emit(notice)
        return specs, before

    def run(self) -> int:
        run, opts = self.shared, self.shared.opts
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
            only = opts.settings.spec
            if only and not self.state.complete and selected_done(self.state, only):
                return self.end(ExitCode.OK, selected_reason(self.state, only))
            if self.state.complete:
                self.state, code, before = self.verification.complete(
                    self.state, self.pool, specs, before
                )
                if code is not None:
                    return code
                current, switch, new = None, False, ()  # the failed verification's findings
                continue
            if run.cancel.requested:
                said = cancelled(lanes=False)
                return self.end(ExitCode[said.code], said.reason)
            reason = run.out_of_budget(self.state)
            if reason is not None:
                return self.end(ExitCode.MAX_ITERATIONS, reason)
            runnable = self._unblocked(specs)
            path = next_spec(runnable, self.state, current, switch=switch, new=new)
            if path is None:  # every spec that needs work is at an iteration cap
                return self.end(ExitCode.MAX_ITERATIONS, self._blocked_reason())
            spec = next(s for s in specs if s.path == path)
            self.pool, choice = self.seats.choose(self.pool, self.state, spec)
            if isinstance(choice, Wait):
                stopped = self.seats.wait(self.state, choice)
                if stopped is not None:
                    return stopped
                continue  # re-scan and choose again: specs may have changed meanwhile
            if isinstance(choice, Exhausted):
                # raises: with no agent left, there is nothing to ask
                self.seats.exhausted(self.state, choice)
            self.state, admitted = self.circuit.admit(self.state)
            if admitted is not None:
                return self.end(ExitCode[admitted.code], admitted.reason)
            self.use(choice)
            outcome, before, stop = self.rotate(spec, tick, before)
            if stop is not None:
                return stop
            current = path
            switch = outcome.signal == "DONE" and not outcome.changed

    def rotate(
        self, spec: Spec, tick: float, before: Snapshot
    ) -> tuple[Outcome, Snapshot, int | None]:
        """One rotation of `spec`, from the tree `before`, as a pipeline: its turn (numbered
        and saved), the attempt (what a Ctrl-C may stop), then, under held interrupts, the
        outcome settled and committed; then what the run does about it. The outcome, the tree
        the next rotation starts from, and the exit code when the run ends."""
        breaker = self.state.breaker  # as the rotation starts: what did its outcome do to it?
        turn = self.turn(spec, tick, self.shared.cancel.now)  # numbered and saved, before the agent
        attempt = self.rotation.attempt(turn)
        with deferred_interrupts():  # from the tree taken to the outcome written
            outcome = self.rotation.settle(attempt, before)
            after = self.commit(self.rotation, attempt, outcome)
        return outcome, after, self.decide(outcome, breaker)

    def decide(self, outcome: Outcome, breaker: Breaker) -> int | None:
        """After a committed outcome (the breaker was `breaker` before it): the run ends at once
        on a stop (`heard`), else on a person's call; the exit code when it does."""
        stop = self.heard(outcome, breaker)
        if stop is None:
            stop = self.escalate_if_needed(outcome.spec, breaker)
            return None if stop is None else self.end(ExitCode[stop.code], stop.reason)
        if stop.question:
            ask(self.shared, outcome.spec, self.shared.ws.current_log)
        return self.end(ExitCode[stop.code], stop.reason)

    def heard(self, outcome: Outcome, breaker: Breaker) -> Stop | None:
        """After a committed outcome, in both schedulers: what it did to the breaker is said
        (after the rotation's own line); unless it was cut short, the pool, the convergence
        watch and the cost line hear of it; what it means for the run (rules/counts/stops.py)."""
        run = self.shared
        lane = outcome.spec if outcome.lane is not None else None  # a lane's own breaker
        if breaker_of(self.state, lane) != breaker:
            self.circuit.say(breaker, breaker_of(self.state, lane), lane)
        if not outcome.interrupted:
            self.pool = self.seats.settle(self.pool, self.state, outcome)
            self.convergence.feed(outcome.spec, outcome.mode, outcome.changes.paths)
            run.emit(CostsUpdated(*run.costs(self.state)))
        o, now = outcome, run.cancel.now.is_set()
        return after_outcome(o.spec, o.signal, o.interrupted, o.halted, now=now, lanes=self.lanes)

    def use(self, pick: Pick) -> None:
        """The pool's pick takes the next rotation."""
        self.pool, self.member = pick.pool, self.shared.members[pick.name]

    def escalate_if_needed(self, path: str, breaker: Breaker) -> Stop | None:
        """After a rotation of `path` (the run's breaker was `breaker` before its outcome): a
        breaker it opened, then a spec that does not converge, is a person's call; how the
        run ends when it does (its scheduler says the end)."""
        stop = None
        if self.state.breaker != breaker:  # the outcome moved it: did it open?
            self.state, stop = self.circuit.escalate_if_opened(breaker, self.state, self.pool)
        if stop is None:
            self.state, stop = self.convergence.escalate_if_stuck(self.state, path)
        return stop

    def turn(self, spec: Spec, tick: float, stop: threading.Event) -> Turn:
        """The next rotation of `spec`, numbered (and saved: the number is taken even if ralph
        dies during it), with the agent the pool chose and the answer it delivers."""
        run = self.shared
        row = self.state.get(spec.path)
        assert row is not None
        mode: Mode = "IMPLEMENT" if row.done_count == 0 else "REVIEW"
        self.mode = mode  # whose work a semantic check's judge then judges
        state = number_next(self.state)
        if stop is run.cancel.now:  # the project's own tree: its current spec
            state = replace(state, current_spec=spec.path)
        self.state = state
        answer, self.answer = self.answer, None  # delivered with this rotation's prompt
        return Turn(
            *(spec, mode, self.member.agent, self.reviewer(), state.last_rotation, state),
            answer,
            *(run.first, run.limit(state), tick, stop),
        )

    def commit(self, rotation: Rotation, attempt: Attempt, outcome: Outcome) -> Snapshot:
        """The outcome joins the run's state by the one commit step (run/ledger.commit); the
        caller holds interrupts. The tree the next rotation starts from."""
        write = partial(
            ledger.write, rotation.books, attempt, outcome, keep=rotation.gate.keep_tests
        )
        fold_ = partial(fold, rule=self.circuit.rule)
        save, budget = self.statefile.save, attempt.budget
        self.state, after = ledger.commit(self.state, outcome, fold_, save, budget, write)
        return after

    def _unblocked(self, specs: list[Spec]) -> list[Spec]:
        """The specs that may run: those at an iteration cap of their front matter are
        recorded as blocked (for `ralph status`) and skipped; the others go on."""
        run = self.shared
        for error in self.gate.new_errors(specs):
            run.emit(Notice("warning", f"{error}: its DONEs are refused until it is fixed"))
        blocked = self.gate.blocked(specs, self.state)
        marked = mark_blocked(self.state, blocked)
        if marked != self.state:
            before = {s.path: s.blocked for s in self.state.specs}
            self.state = marked
            for path, reason in blocked.items():
                if before.get(path) != reason:  # newly stopped: say so once
                    run.emit(Notice("warning", f"{path} stopped: {reason}"))
                    run.emit(SpecBlocked(path, reason))
        only = run.opts.settings.spec
        return [s for s in specs if s.path not in blocked and (not only or s.path in only)]

    def _blocked_reason(self) -> str:
        blocked = [f"{s.path} ({s.blocked})" for s in self.state.specs if s.blocked]
        return "iteration cap reached: " + ", ".join(blocked)

    def _take_answer(self) -> int | None:
        """A pending question: with an answer it goes into the next prompt; without one the
        run stops before starting any agent (it would only be asked again)."""
        run = self.shared
        question = pending(run.ws)
        if question is None:
            return None
        self.answer = answered(run.ws)
        if self.answer is not None:
            run.emit(Notice("info", "passing your answer (.ralph/answer.md) to the agent"))
            return None
        run.emit(Notice("warning", "question waiting for an answer:\n" + shown(question)))
        return self.end(
            ExitCode.NEEDS_HUMAN,
            "a question is waiting for your answer in .ralph/question.md: write it to "
            ".ralph/answer.md and run again (or delete .ralph/question.md to go on without)",
        )


def selected_reason(state: State, only: tuple[str, ...]) -> str:
    waiting = sum(1 for s in state.specs if s.needs_work and s.path not in only)
    return (
        f"the selected specs are verified (3/3): {', '.join(only)}; {waiting} other spec(s) "
        "still need work, and the final verification waits for every spec"
    )
