"""The final verification: once every spec is at 3/3, another agent checks the whole work with
fresh eyes and ralph runs the project's tests and every spec's checks itself."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from ralph.agents.command import CommandAgent
from ralph.checks.command import run_command
from ralph.checks.records import CheckRan, JudgeSpent
from ralph.checks.result import CheckResult
from ralph.errors import ExitCode
from ralph.rules import verification as fv
from ralph.rules.budget import LatencyBudget
from ralph.rules.pool import Pool
from ralph.rules.printable import clean_text
from ralph.rules.prompt import VerifyInput, build_verification_prompt
from ralph.rules.signals import parse_signal
from ralph.rules.spec import Spec
from ralph.rules.state import State
from ralph.rules.usage import record_usage
from ralph.rules.words import plural
from ralph.run.accounting import budget_spent, rotation_tally, usage_fields
from ralph.run.circuit import Circuit
from ralph.run.context import Shared, matrix_rows, number_next
from ralph.run.events import Notice, RotationEnded
from ralph.run.facts import (
    RunArchived,
    VerificationAnswered,
    VerificationEnded,
    VerificationStarted,
)
from ralph.run.interrupts import deferred_interrupts
from ralph.run.ledger import keep, kept
from ralph.run.rotation import Rotation
from ralph.run.tree import Taken
from ralph.specs.frontmatter import ExternalConfig
from ralph.store.archive import archive_run
from ralph.store.files import read_text, write_text_new
from ralph.store.journal import recent_errors, stamp
from ralph.store.rotationlog import RotationLog
from ralph.store.snapshot import Changes, Snapshot

ALL_SPECS = fv.ALL_SPECS


class Verification:
    """The final verification, on the state the scheduler passes: it returns the new one."""

    def __init__(
        self,
        run: Shared,
        rotation: Rotation,
        circuit: Circuit,
        reviewer: Callable[[str], CommandAgent],
    ) -> None:
        self.run = run
        self.rotation = rotation
        self.circuit = circuit
        self.gate = rotation.gate
        self.reviewer = reviewer  # another agent than the coder's, by the pool as it is now

    def complete(
        self, state: State, pool: Pool, specs: list[Spec], before: Snapshot
    ) -> tuple[State, int | None, Snapshot]:
        """Every spec is at 3/3: verify independently, or end the run. The state after, the
        exit code when the run ends, and the tree the next rotation starts from."""
        run = self.run
        final = state.final
        if not run.opts.final_verification:
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
        if final.failures >= run.opts.max_verification_failures:
            # an earlier run gave up; this run is the user's decision to try again
            state = replace(state, final=replace(final, failures=0))
        if run.exhausted(state):
            # The work is done within the limit; its verification is bounded on its own (by
            # max_verification_failures), so it always gets its rotation.
            state = replace(state, max_iteration=state.last_rotation + 1 - run.first)
        state, stop = self.circuit.admit(state)
        if stop is not None:
            return state, stop, before
        breaker = state.breaker  # as the verification starts: did its verdict open it?
        state, before, verdict, interrupted = self._verify(state, specs, before)
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
        if failures >= run.opts.max_verification_failures:
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
        return state, stop, before

    def _finish(self, state: State, reason: str) -> int:
        run = self.run
        folder = archive_run(run.ws)
        run.emit(RunArchived(run.ws.rel(folder)))
        run.emit(Notice("info", f"run archived in {run.ws.rel(folder)}/"))
        return run.end(state, ExitCode.OK, reason)

    def _own_checks(
        self, state: State, specs: list[Spec], iteration: int, log: RotationLog
    ) -> tuple[State, list[str], bool]:
        """The project's test command and every spec's checks (the DONE gate's runner, on the
        tree as it is now); the state with what a judge spent, the failures, and whether
        Ctrl-C stopped them."""
        opts, failed = self.run.opts, list[str]()
        if opts.test_command:
            config = ExternalConfig(command=opts.test_command, timeout=opts.test_timeout or 1800.0)
            # in the clean room, as every check that decides (checks/place.py)
            where, env = self.gate.check_place()
            outcome = run_command(config, where, env, name="test_command (ralph.yaml)", room=where)
            # the command itself: the report says what ralph ran, not only under which name
            self.run.emit(
                CheckRan(iteration, None, {**outcome.to_json(), "command": config.command})
            )
            log.chunk("stdout", _check_line(outcome.name, config.command, outcome).encode())
            if outcome.interrupted:
                return state, failed, True
            if not outcome.passed:
                tail = " | ".join(outcome.output.strip().splitlines()[-5:])
                failed.append(
                    f"`{config.command}` ({outcome.name}) failed: {outcome.summary}"
                    + (f"; output ends: {tail}" if tail else "")
                )
        self.rotation.judged = []
        try:
            # no tree key: the final verification never takes a cached result
            found = self.gate.check_all(specs, iteration=iteration, tree=lambda: None)
        except KeyboardInterrupt:
            return _judged(state, self.rotation.judged), failed, True
        # a semantic check's judge counts like any call, even when stopped
        state = _judged(state, self.rotation.judged)
        for path, gate in found:
            if gate.interrupted:
                return state, failed, True
            for result in gate.results:
                if not result.skipped:
                    log.chunk("stdout", _check_line(f"{path}: {result.name}", "", result).encode())
            failed.extend(f"{path}: {reason}" for reason in gate.reasons)
        return state, failed, False

    def _settle(
        self,
        before: Snapshot,
        log: RotationLog,
        budget: LatencyBudget,
        bookkeeping: Callable[[Changes], State],
    ) -> tuple[State, Snapshot, Taken]:
        """Take the tree after the agent and save the outcome in the state; the caller holds
        interrupts. Nothing may stop the outcome from being saved: a failed snapshot counts as
        a change (a DONE is not clean, a verification fails) and is raised only afterwards,
        without replacing the last snapshot (so the next run sees a change too)."""
        with budget.operation("snapshot"):
            taken = self.rotation.tree.after(before)
        with budget.operation("bookkeeping"):
            state = bookkeeping(taken.changes)
        with budget.operation("state_save"):
            self.run.save(state)
        return state, kept(taken, log), taken

    def _verify(
        self, state: State, specs: list[Spec], before: Snapshot
    ) -> tuple[State, Snapshot, fv.Verdict, bool]:
        run, ws, opts = self.run, self.run.ws, self.run.opts
        # fresh eyes: another available agent of the pool than the one that completed
        verifier = self.reviewer("VERIFY")
        budget = LatencyBudget(opts.latency_budget_ms)
        state = number_next(state)
        iteration = state.last_rotation
        attempt = state.final.failures + 1
        state = replace(state, current_spec=None)
        run.save(state)
        run.lock.update(current_spec=None, iteration=iteration, mode="VERIFY")
        report = ws.handoff(fv.SLUG)
        prompt = build_verification_prompt(
            VerifyInput(
                iteration=iteration,
                max_iteration=run.limit(state),
                attempt=attempt,
                max_failures=opts.max_verification_failures,
                specs=tuple((s.path, s.text) for s in specs),
                test_commands=fv.announced_commands(specs, self.gate.meta, opts.test_command),
                report_path=ws.rel(report),
                guardrails_path=ws.rel(ws.guardrails),
                guardrails_text=read_text(ws.guardrails),
                last_failure=state.final.last_failure,
                recent_errors=recent_errors(ws.errors_log),
            )
        )
        # It quotes files the agent wrote (handoff): no secret, no escape sequence in it.
        prompt = clean_text(run.redactor.text(prompt))
        write_text_new(ws.prompt_file, prompt)
        started = time.time()
        log = RotationLog(
            ws.history_log(fv.SLUG, iteration),
            ws.current_log,
            f"# ralph final verification {attempt} (rotation {iteration}) "
            f"agent={verifier.name} started={stamp(started)}",
            ws.records,
        )
        run.emit(run.started(state, verifier.name, ALL_SPECS, "VERIFY", started))
        run.emit(VerificationStarted(attempt, iteration, verifier.name))
        request = self.rotation.request(
            verifier,
            prompt,
            specs[0].path,
            "VERIFY",
            iteration,
            report,
            tuple(s.path for s in specs),
        )
        result = self.rotation.run_agent(verifier, request, log, ALL_SPECS)
        # its tokens and cost count like any rotation's (run totals, per agent; no spec)
        state = record_usage(state, fv.SUBJECT, verifier.name, result.usage)
        failure = result.failure
        tag = None if failure else parse_signal(result.output_text, prompt, result.final_text)
        run.emit(VerificationAnswered(attempt, iteration, tag, failure))
        # ralph runs the tests itself: the verifier's word alone never verifies anything
        interrupted = result.process.interrupted
        failed_checks: list[str] = []
        checked = time.perf_counter()
        if not interrupted:
            state, failed_checks, interrupted = self._own_checks(state, specs, iteration, log)
        checks_s = time.perf_counter() - checked
        verdict = fv.Verdict(False, ())
        dropped: tuple[str, ...] = ()
        said: tuple[Notice, ...] = ()  # the breaker's lines, after the rotation's own

        def bookkeeping(changes: Changes) -> State:
            nonlocal verdict, dropped, said
            verdict = fv.judge(
                tag, "interrupted" if interrupted else failure, changes.paths, failed_checks
            )
            if interrupted:  # the user stopped it: no verdict either way
                return state
            if verdict.passed:
                after = fv.after_pass(state)
            else:
                after, dropped = fv.after_failure(state, verdict)
            why = f"final verification {attempt}: {verdict.summary}"
            after, said = self.circuit.feed(after, verdict.passed, why, fv.SUBJECT)
            return after

        with deferred_interrupts():
            state, after, taken = self._settle(before, log, budget, bookkeeping)
            keep(self.rotation, after, taken)
            elapsed = time.time() - started
            changes = len(taken.changes)
            with budget.operation("logs"):
                log.close(
                    f"# ended: verdict={'PASS' if verdict.passed else 'FAIL'} "
                    f"files_changed={changes} elapsed={elapsed:.1f}s"
                )
                run.emit(
                    VerificationEnded(
                        attempt=attempt,
                        iteration=iteration,
                        passed=verdict.passed,
                        summary=verdict.summary,
                        reasons=tuple(verdict.reasons),
                        files_changed=changes,
                        downgraded=dropped,
                        failures=state.final.failures,
                        log=ws.rel(log.path),
                        report=ws.rel(report),
                        specs=tuple(s.path for s in specs),
                        usage=usage_fields(result),
                        agent_s=result.process.elapsed,
                        checks_s=checks_s,
                        seconds=elapsed,
                    )
                )
            budget_spent(run.emit, iteration, budget)
            run.emit(
                RotationEnded(
                    verifier.name,
                    ALL_SPECS,
                    "VERIFY",
                    iteration,
                    run.run_iteration(state),
                    run.budget(state),
                    "VERIFY_PASS" if verdict.passed else "VERIFY_FAIL",
                    changes,
                    3 if verdict.passed else 2,
                    round(elapsed, 3),
                    None if verdict.passed else verdict.summary,
                    dropped,
                    matrix_rows(state),
                    rotation_tally(result),  # its usage counts on the panel like any rotation's
                    checks=round(checks_s, 3) if checks_s else None,
                )
            )
            self.circuit.say(said)
        return state, after, verdict, interrupted


def _judged(state: State, judged: list[JudgeSpent]) -> State:
    """The state with what a semantic check's judges spent."""
    for j in judged:
        state = record_usage(state, j.spec, j.agent, j.usage)
    return state


def _check_line(name: str, command: str, result: CheckResult) -> str:
    """One check ralph ran in a final verification, for its history log."""
    what = f" `{command}`" if command else ""
    verdict = "passed" if result.passed else "FAILED"
    output = f"{result.output}\n" if not result.passed and result.output else ""
    return f"\n# ralph ran {name}{what}: {verdict} ({result.summary})\n{output}"
