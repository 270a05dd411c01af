"""The final verification: once every spec is at 3/3, another agent checks the whole work with
fresh eyes and ralph runs the project's tests and every spec's checks itself."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from functools import partial

from ralph.agents.command import CommandAgent
from ralph.errors import ExitCode
from ralph.rules.agents.pool import Pool
from ralph.rules.counts import verification as fv
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import State, number_next
from ralph.rules.text.words import plural
from ralph.run import ledger, trial
from ralph.run.circuit import Circuit
from ralph.run.context import Shared
from ralph.run.events import Notice
from ralph.run.facts import RunArchived
from ralph.run.fold import fold
from ralph.run.interrupts import deferred_interrupts
from ralph.run.ledger import StateFile
from ralph.run.rotation import Rotation
from ralph.store.records.archive import archive_run
from ralph.store.snapshots.snapshot import Snapshot


class Verification:
    """The final verification, on the state the scheduler passes: it returns the new one."""

    def __init__(
        self,
        run: Shared,
        rotation: Rotation,
        circuit: Circuit,
        statefile: StateFile,
        reviewer: Callable[[str], CommandAgent],
    ) -> None:
        self.run = run
        self.rotation = rotation
        self.circuit = circuit
        self.statefile = statefile  # the scheduler's: it saves only what changed
        self.gate = rotation.gate
        self.reviewer = reviewer  # another agent than the coder's, by the pool as it is now

    def complete(
        self, state: State, pool: Pool, specs: list[Spec], before: Snapshot
    ) -> tuple[State, int | None, Snapshot]:
        """Every spec is at 3/3: verify independently, or end the run. The state after, the
        exit code when the run ends, and the tree the next rotation starts from."""
        run = self.run
        final = state.final
        if not run.opts.config.final_verification:
            return state, run.end(state, ExitCode.OK, "every spec verified (3/3)"), before
        if final.passed:
            run.emit(Notice("info", "the final verification passed; nothing changed since"))
            return state, run.end(state, ExitCode.OK, "every spec verified (3/3)"), before
        if final.accepted:
            why = "the final verification was accepted by the user (user_accepted)"
            return state, self._finish(state, f"every spec at 3/3; {why}"), before
        if final.bypassed:
            run.emit(Notice("warning", "the final verification was skipped by the user (risk)"))
            return (
                state,
                run.end(
                    state,
                    ExitCode.OK,
                    "every spec verified (3/3); final verification skipped (risk)",
                ),
                before,
            )
        if final.failures >= run.opts.config.max_verification_failures:
            # an earlier run gave up; this run is the user's decision to try again
            state = replace(state, final=replace(final, failures=0))
        if run.exhausted(state):
            # The work is done within the limit; its verification is bounded on its own (by
            # max_verification_failures), so it always gets its rotation.
            state = replace(state, max_iteration=state.last_rotation + 1 - run.first)
        state, stop = self.circuit.admit(state)
        if stop is not None:
            return state, run.end(state, ExitCode[stop.code], stop.reason), before
        breaker = state.breaker  # as the verification starts: what did its verdict do to it?
        state, before, verdict, interrupted = self._verify(state, specs, before)
        self.circuit.say(breaker, state.breaker)  # after the verification's own line
        if interrupted:
            return (
                state,
                run.end(state, ExitCode.INTERRUPTED, "interrupted during the final verification"),
                before,
            )
        if verdict.passed:
            run.emit(Notice("info", "final verification passed"))
            return state, self._finish(state, "every spec verified (3/3)"), before
        failures = state.final.failures
        if failures >= run.opts.config.max_verification_failures:
            run.emit(
                Notice(
                    "warning",
                    f"the final verification failed {plural(failures, 'time')} in a row; "
                    f"the last time: {verdict.summary}",
                )
            )
            report = run.ws.rel(run.ws.handoff(fv.SLUG))
            return (
                state,
                run.end(
                    state,
                    ExitCode.VERIFICATION_FAILED,
                    f"final verification failed {plural(failures, 'time')} in a row: "
                    f"{verdict.summary}; "
                    f"the verifier's reasons are in {report}",
                ),
                before,
            )
        state, stop = self.circuit.escalate_if_opened(breaker, state, pool)
        ended = None if stop is None else run.end(state, ExitCode[stop.code], stop.reason)
        return state, ended, before

    def _finish(self, state: State, reason: str) -> int:
        run = self.run
        folder = archive_run(run.ws)
        run.emit(RunArchived(run.ws.rel(folder)))
        run.emit(Notice("info", f"run archived in {run.ws.rel(folder)}/"))
        return run.end(state, ExitCode.OK, reason)

    def _verify(
        self, state: State, specs: list[Spec], before: Snapshot
    ) -> tuple[State, Snapshot, fv.Verdict, bool]:
        """One final verification, as a rotation: numbered and saved (the number is taken even
        if ralph dies during it), tried, then settled, folded and written in one step."""
        # fresh eyes: another available agent of the pool than the one that completed
        verifier = self.reviewer("VERIFY")
        state = replace(number_next(state), current_spec=None)
        self.statefile.save(state)
        tried = trial.attempt(self.rotation, state, specs, verifier, self.reviewer("JUDGE"))
        fold_, save = partial(fold, rule=self.circuit.rule), self.statefile.save
        with deferred_interrupts():  # from the tree taken to the outcome written
            verified = trial.settle(self.rotation, tried, before)
            write = partial(trial.write, self.rotation.books, tried, verified)
            state, after = ledger.commit(state, verified, fold_, save, tried.budget, write)
        return state, after, trial.verdict_of(verified), verified.interrupted
