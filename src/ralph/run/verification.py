"""The final verification: once every spec is at 3/3, another agent checks the whole work with
fresh eyes and ralph runs the project's tests and every spec's checks itself."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace

from ralph.checks.command import run_command
from ralph.checks.gate import DoneGate
from ralph.checks.records import CheckRan
from ralph.checks.result import CheckResult
from ralph.errors import ExitCode
from ralph.rules import verification as fv
from ralph.rules.budget import LatencyBudget
from ralph.rules.prompt import VerifyInput, build_verification_prompt
from ralph.rules.signals import parse_signal
from ralph.rules.spec import Spec
from ralph.rules.usage import record_usage
from ralph.rules.words import plural
from ralph.run.accounting import rotation_tally, usage_fields
from ralph.run.circuit import Circuit
from ralph.run.context import RunContext
from ralph.run.events import Notice, RotationEnded
from ralph.run.facts import (
    RunArchived,
    VerificationAnswered,
    VerificationEnded,
    VerificationStarted,
)
from ralph.run.interrupts import deferred_interrupts
from ralph.run.rotation import Rotation
from ralph.run.seats import Seats
from ralph.run.tree import Taken
from ralph.specs.frontmatter import ExternalConfig
from ralph.store.archive import archive_run
from ralph.store.files import read_text, write_text_new
from ralph.store.journal import recent_errors, stamp
from ralph.store.rotationlog import RotationLog
from ralph.store.snapshot import Changes, Snapshot

ALL_SPECS = fv.ALL_SPECS


class Verification:
    def __init__(
        self, ctx: RunContext, rotation: Rotation, circuit: Circuit, seats: Seats, gate: DoneGate
    ) -> None:
        self.ctx = ctx
        self.rotation = rotation
        self.circuit = circuit
        self.seats = seats
        self.gate = gate

    def complete(self, specs: list[Spec], before: Snapshot) -> tuple[int | None, Snapshot]:
        """Every spec is at 3/3: verify independently, or end the run."""
        ctx = self.ctx
        final = ctx.state.final
        if not ctx.opts.final_verification:
            return ctx.end(ExitCode.OK, "every spec verified (3/3)"), before
        if final.passed:
            ctx.emit(Notice("info", "the final verification passed; nothing changed since"))
            return ctx.end(ExitCode.OK, "every spec verified (3/3)"), before
        if final.accepted:
            return self._finish(
                "every spec at 3/3; the final verification was accepted by the user (user_accepted)"
            ), before
        if final.bypassed:
            ctx.emit(Notice("warning", "the final verification was skipped by the user (risk)"))
            return ctx.end(
                ExitCode.OK, "every spec verified (3/3); final verification skipped (risk)"
            ), before
        if final.failures >= ctx.opts.max_verification_failures:
            # an earlier run gave up; this run is the user's decision to try again
            ctx.state = replace(ctx.state, final=replace(final, failures=0))
        if ctx.exhausted:
            # The work is done within the limit; its verification is bounded on its own (by
            # max_verification_failures), so it always gets its rotation.
            ctx.limit = ctx.state.last_rotation + 1
            ctx.state = replace(ctx.state, max_iteration=ctx.budget)
        stop = self.circuit.admit()
        if stop is not None:
            return stop, before
        before, verdict, interrupted = self._verify(specs, before)
        if interrupted:
            return ctx.end(
                ExitCode.INTERRUPTED, "interrupted during the final verification"
            ), before
        if verdict.passed:
            ctx.emit(Notice("info", "final verification passed"))
            return self._finish("every spec verified (3/3)"), before
        failures = ctx.state.final.failures
        if failures >= ctx.opts.max_verification_failures:
            ctx.emit(
                Notice(
                    "warning",
                    f"the final verification failed {plural(failures, 'time')} in a row; "
                    f"the last time: {verdict.summary}",
                )
            )
            report = ctx.ws.rel(ctx.ws.handoff(fv.SLUG))
            return ctx.end(
                ExitCode.VERIFICATION_FAILED,
                f"final verification failed {plural(failures, 'time')} in a row: "
                f"{verdict.summary}; "
                f"the verifier's reasons are in {report}",
            ), before
        return self.circuit.escalate_if_open(), before

    def _finish(self, reason: str) -> int:
        ctx = self.ctx
        folder = archive_run(ctx.ws)
        ctx.emit(RunArchived(ctx.ws.rel(folder)))
        ctx.emit(Notice("info", f"run archived in {ctx.ws.rel(folder)}/"))
        return ctx.end(ExitCode.OK, reason)

    def _own_checks(
        self, specs: list[Spec], iteration: int, log: RotationLog
    ) -> tuple[list[str], bool]:
        """The project's test command and every spec's checks (the DONE gate's runner, on the
        tree as it is now); the failures, and whether Ctrl-C stopped them."""
        opts, failed = self.ctx.opts, list[str]()
        if opts.test_command:
            config = ExternalConfig(command=opts.test_command, timeout=opts.test_timeout or 1800.0)
            outcome = run_command(config, opts.root, name="test_command (ralph.yaml)")
            self.ctx.emit(CheckRan(iteration, None, outcome.to_json()))
            log.chunk("stdout", _check_line(outcome.name, config.command, outcome).encode())
            if outcome.interrupted:
                return failed, True
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
            return failed, True
        finally:  # a semantic check's judge counts like any call, even when stopped
            for judged in self.rotation.judged:
                state = self.ctx.state
                self.ctx.state = record_usage(state, judged.spec, judged.agent, judged.usage)
        for path, gate in found:
            if gate.interrupted:
                return failed, True
            for result in gate.results:
                if not result.skipped:
                    log.chunk("stdout", _check_line(f"{path}: {result.name}", "", result).encode())
            failed.extend(f"{path}: {reason}" for reason in gate.reasons)
        return failed, False

    def _settle(
        self,
        before: Snapshot,
        log: RotationLog,
        budget: LatencyBudget,
        bookkeeping: Callable[[Changes], None],
    ) -> tuple[Snapshot, Taken]:
        """Take the tree after the agent and save the outcome in the state; the caller holds
        interrupts. Nothing may stop the outcome from being saved: a failed snapshot counts as
        a change (a DONE is not clean, a verification fails) and is raised only afterwards,
        without replacing the last snapshot (so the next run sees a change too)."""
        with budget.operation("snapshot"):
            taken = self.rotation.tree.after(before)
        with budget.operation("bookkeeping"):
            bookkeeping(taken.changes)
        with budget.operation("state_save"):
            self.ctx.save()
        return self.rotation.kept(taken, log)

    def _verify(self, specs: list[Spec], before: Snapshot) -> tuple[Snapshot, fv.Verdict, bool]:
        ctx, ws, opts = self.ctx, self.ctx.ws, self.ctx.opts
        # fresh eyes: another available agent of the pool than the one that completed
        verifier = self.seats.reviewer("VERIFY")
        budget = LatencyBudget(opts.latency_budget_ms)
        iteration = ctx.number_next()
        attempt = ctx.state.final.failures + 1
        ctx.state = replace(ctx.state, current_spec=None)
        ctx.save()
        ctx.lock.update(current_spec=None, iteration=iteration, mode="VERIFY")
        report = ws.handoff(fv.SLUG)
        prompt = build_verification_prompt(
            VerifyInput(
                iteration=iteration,
                max_iteration=ctx.limit,
                attempt=attempt,
                max_failures=opts.max_verification_failures,
                specs=tuple((s.path, s.text) for s in specs),
                test_commands=fv.announced_commands(specs, self.gate.meta, opts.test_command),
                report_path=ws.rel(report),
                guardrails_path=ws.rel(ws.guardrails),
                guardrails_text=read_text(ws.guardrails),
                last_failure=ctx.state.final.last_failure,
                recent_errors=recent_errors(ws.errors_log),
            )
        )
        prompt = ctx.redactor.text(prompt)  # it quotes files the agent wrote (handoff)
        write_text_new(ws.prompt_file, prompt)
        started = time.time()
        log = RotationLog(
            ws.history_log(fv.SLUG, iteration),
            ws.current_log,
            f"# ralph final verification {attempt} (rotation {iteration}) "
            f"agent={verifier.name} started={stamp(started)}",
        )
        ctx.emit(ctx.started(verifier.name, ALL_SPECS, "VERIFY", started))
        ctx.emit(VerificationStarted(attempt, iteration, verifier.name))
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
        ctx.state = record_usage(ctx.state, fv.SUBJECT, verifier.name, result.usage)
        failure = result.failure
        tag = None if failure else parse_signal(result.output_text, prompt, result.final_text)
        ctx.emit(VerificationAnswered(attempt, iteration, tag, failure))
        # ralph runs the tests itself: the verifier's word alone never verifies anything
        interrupted = result.process.interrupted
        failed_checks: list[str] = []
        if not interrupted:
            failed_checks, interrupted = self._own_checks(specs, iteration, log)
        verdict = fv.Verdict(False, ())
        dropped: tuple[str, ...] = ()

        def bookkeeping(changes: Changes) -> None:
            nonlocal verdict, dropped
            verdict = fv.judge(
                tag, "interrupted" if interrupted else failure, changes.paths, failed_checks
            )
            if interrupted:  # the user stopped it: no verdict either way
                return
            if verdict.passed:
                ctx.state = fv.after_pass(ctx.state)
            else:
                ctx.state, dropped = fv.after_failure(ctx.state, verdict)
            self.circuit.feed(
                verdict.passed, f"final verification {attempt}: {verdict.summary}", fv.SUBJECT
            )

        with deferred_interrupts():
            after, taken = self._settle(before, log, budget, bookkeeping)
            self.rotation.keep(after, taken)
            elapsed = time.time() - started
            changes = len(taken.changes)
            with budget.operation("logs"):
                log.close(
                    f"# ended: verdict={'PASS' if verdict.passed else 'FAIL'} "
                    f"files_changed={changes} elapsed={elapsed:.1f}s"
                )
                ctx.emit(
                    VerificationEnded(
                        attempt=attempt,
                        iteration=iteration,
                        passed=verdict.passed,
                        summary=verdict.summary,
                        reasons=tuple(verdict.reasons),
                        files_changed=changes,
                        downgraded=dropped,
                        failures=ctx.state.final.failures,
                        log=ws.rel(log.path),
                        report=ws.rel(report),
                        specs=tuple(s.path for s in specs),
                        usage=usage_fields(result),
                    )
                )
            self.rotation.record_budget(iteration, budget)
            ctx.emit(
                RotationEnded(
                    verifier.name,
                    ALL_SPECS,
                    "VERIFY",
                    iteration,
                    ctx.run_iteration,
                    ctx.budget,
                    "VERIFY_PASS" if verdict.passed else "VERIFY_FAIL",
                    changes,
                    3 if verdict.passed else 2,
                    round(elapsed, 3),
                    None if verdict.passed else verdict.summary,
                    dropped,
                    ctx.rows(),
                    rotation_tally(result),  # its usage counts on the panel like any rotation's
                )
            )
            self.circuit.announce()
        return after, verdict, interrupted


def _check_line(name: str, command: str, result: CheckResult) -> str:
    """One check ralph ran in a final verification, for its history log."""
    what = f" `{command}`" if command else ""
    verdict = "passed" if result.passed else "FAILED"
    output = f"{result.output}\n" if not result.passed and result.output else ""
    return f"\n# ralph ran {name}{what}: {verdict} ({result.summary})\n{output}"
