"""A final verification as a rotation in two parts, like a spec's (run/rotation.py): `attempt`
(the prompt, the verifier, ralph's own checks: what a Ctrl-C may stop) and `settle` (the tree
taken after it, the verdict as values). Its scheduler folds the outcome (fold_verification in
run/fold.py) and writes it in the one commit step (run/ledger.commit): the state, `write`."""

from __future__ import annotations

import time

from ralph.agents.command import CommandAgent
from ralph.checks.command import run_command
from ralph.checks.records import CheckRan, JudgeSpent
from ralph.checks.result import CheckResult
from ralph.rules.agents.budget import LatencyBudget
from ralph.rules.counts import verification as fv
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import State
from ralph.rules.text.prompt import VerifyInput, build_verification_prompt
from ralph.rules.text.signals import parse_signal
from ralph.run.events import RotationEnded, matrix_rows
from ralph.run.facts import VerificationAnswered, VerificationEnded, VerificationStarted
from ralph.run.ledger import (
    Books,
    ended,
    rotation_tally,
    usage_fields,
)
from ralph.run.rotation import Rotation, posted
from ralph.run.turn import Outcome, Trial
from ralph.specs.checkconfig import command_check
from ralph.store.disk.files import read_text
from ralph.store.records.journal import recent_errors, stamp
from ralph.store.records.rotationlog import RotationLog
from ralph.store.snapshots.snapshot import Snapshot

ALL_SPECS = fv.ALL_SPECS


def attempt(
    rotation: Rotation,
    state: State,
    specs: list[Spec],
    verifier: CommandAgent,
    judge: CommandAgent,
) -> Trial:
    """The verifier at work on the whole project, then ralph's own checks (`judge` judges
    the semantic ones): `state` is the run's state with the verification's rotation
    numbered (and saved)."""
    run, ws, config = rotation.run, rotation.run.ws, rotation.run.opts.config
    budget = LatencyBudget(config.latency_budget_ms)
    iteration, number = state.last_rotation, state.final.failures + 1
    run.lock.update(current_spec=None, iteration=iteration, mode="VERIFY")
    report = ws.handoff(fv.SLUG)
    prompt = build_verification_prompt(
        VerifyInput(
            iteration=iteration,
            max_iteration=run.limit(state),
            attempt=number,
            max_failures=config.max_verification_failures,
            specs=tuple((s.path, s.text) for s in specs),
            test_commands=fv.announced_commands(specs, rotation.gate.meta, config.test_command),
            report_path=ws.rel(report),
            guardrails_path=ws.rel(ws.guardrails),
            guardrails_text=read_text(ws.guardrails),
            last_failure=state.final.last_failure,
            recent_errors=recent_errors(ws.errors_log),
        )
    )
    prompt = posted(rotation, prompt)
    started = time.time()
    log = RotationLog(
        ws.history_log(fv.SLUG, iteration),
        ws.current_log,
        f"# ralph final verification {number} (rotation {iteration}) "
        f"agent={verifier.name} started={stamp(started)}",
        ws.records,
    )
    run.emit(run.started(state, verifier.name, ALL_SPECS, "VERIFY", started))
    run.emit(VerificationStarted(number, iteration, verifier.name))
    paths = tuple(s.path for s in specs)
    request = rotation.request(verifier, prompt, paths[0], "VERIFY", iteration, report, paths)
    result = rotation.run_agent(verifier, request, log, ALL_SPECS)
    failure = result.failure
    tag = None if failure else parse_signal(result.output_text, prompt, result.final_text)
    run.emit(VerificationAnswered(number, iteration, tag, failure))
    # ralph runs the tests itself: the verifier's word alone never verifies anything
    interrupted, failed = result.process.interrupted, tuple[str, ...]()
    checked = time.perf_counter()
    judged: tuple[JudgeSpent, ...] = ()
    if not interrupted:
        failed, interrupted, judged = own_checks(rotation, specs, iteration, log, judge)
    return Trial(
        iteration=iteration,
        attempt=number,
        agent=verifier.name,
        specs=paths,
        result=result,
        tag=tag,
        failed_checks=failed,
        judged=judged,  # a judge's calls count, even when stopped
        interrupted=interrupted,
        report=report,
        log=log,
        budget=budget,
        started=started,
        checks_s=time.perf_counter() - checked,
        first=run.first,
        allowed=run.budget(state),
    )


def own_checks(
    rotation: Rotation, specs: list[Spec], iteration: int, log: RotationLog, judge: CommandAgent
) -> tuple[tuple[str, ...], bool, tuple[JudgeSpent, ...]]:
    """The project's test command and every spec's checks (the DONE gate's runner, on the
    tree as it is now): the failures, whether Ctrl-C stopped them, what their judges spent."""
    run, gate, failed = rotation.run, rotation.gate, list[str]()
    config = command_check(run.opts.config)
    if config is not None:
        command = config.command
        # in the clean room, as every check that decides (checks/place.py)
        where, env = gate.place.here()
        ran = run_command(
            config,
            where,
            env,
            name="test_command (ralph.yaml)",
            room=where,
            launcher=gate.place.launcher,
        )
        # the command itself: the report says what ralph ran, not only under which name
        run.emit(CheckRan(iteration, None, {**ran.to_json(), "command": command}))
        log.chunk("stdout", check_line(ran.name, command, ran).encode())
        if ran.interrupted:
            return tuple(failed), True, ()
        if not ran.passed:
            tail = " | ".join(ran.output.strip().splitlines()[-5:])
            failed.append(
                f"`{command}` ({ran.name}) failed: {ran.why}"
                + (f"; output ends: {tail}" if tail else "")
            )
    try:
        # no tree key: the final verification never takes a cached result
        found = gate.check_all(specs, iteration=iteration, tree=lambda: None, judge=judge)
    except KeyboardInterrupt:
        return tuple(failed), True, ()
    judged = tuple(j for _, checked in found for j in checked.judged)
    for path, checked in found:
        if checked.interrupted:
            return tuple(failed), True, judged
        for result in checked.results:
            if not result.skipped:
                log.chunk("stdout", check_line(f"{path}: {result.name}", "", result).encode())
        failed.extend(f"{path}: {reason}" for reason in checked.reasons)
    return tuple(failed), False, judged


def settle(rotation: Rotation, trial: Trial, before: Snapshot) -> Outcome:
    """The trial as the outcome its scheduler folds, a rotation's of "(all specs)" in VERIFY:
    the tree taken after it and ralph's verdict. The caller holds interrupts from here until
    the outcome is written. A failed snapshot counts as a change (the verification fails)
    and is raised once it is saved."""
    with trial.budget.operation("snapshot"):
        taken = rotation.tree.after(before)
    failure = "interrupted" if trial.interrupted else trial.result.failure
    verdict = fv.judge(trial.tag, failure, taken.changes.paths, trial.failed_checks)
    return Outcome(
        spec=ALL_SPECS,
        mode="VERIFY",
        agent=trial.agent,
        iteration=trial.iteration,
        signal="VERIFY_PASS" if verdict.passed else "VERIFY_FAIL",
        note=None if verdict.passed else verdict.summary,
        interrupted=trial.interrupted,
        result=trial.result,
        taken=taken,
        spec_hash=None,
        front=None,
        lane=None,
        ended=rotation.run.clock(),
        judged=trial.judged,
        seconds=time.time() - trial.started,
        verdict=verdict,
    )


def record(
    books: Books,
    trial: Trial,
    verified: Outcome,
    state: State,
    dropped: tuple[str, ...],
) -> None:
    """After the state that counts it (run/ledger.py): the verification's log closed and its
    record; nothing yet when its snapshot failed."""
    ws, budget, log = books.ws, trial.budget, trial.log
    taken, verdict, result = verified.taken, verdict_of(verified), verified.result
    if taken.failure is not None:
        return
    changes = len(taken.changes)
    with budget.operation("logs"):
        log.close(
            f"# ended: verdict={'PASS' if verdict.passed else 'FAIL'} "
            f"files_changed={changes} elapsed={verified.seconds:.1f}s"
        )
        books.emit(
            VerificationEnded(
                attempt=trial.attempt,
                iteration=trial.iteration,
                passed=verdict.passed,
                summary=verdict.summary,
                reasons=tuple(verdict.reasons),
                files_changed=changes,
                downgraded=dropped,
                failures=state.final.failures,
                log=ws.rel(log.path),
                report=ws.rel(trial.report),
                specs=trial.specs,
                usage=usage_fields(result),
                agent_s=result.process.elapsed,
                checks_s=trial.checks_s,
                seconds=verified.seconds,
            )
        )


def write(
    books: Books,
    trial: Trial,
    verified: Outcome,
    state: State,
    dropped: tuple[str, ...],
) -> Snapshot:
    """Once the state is saved (run/ledger.commit's `write`): the verification's record, the
    tree the next rotation starts from (a failed snapshot is raised now), then the events;
    that tree."""
    record(books, trial, verified, state, dropped)
    taken, passed = verified.taken, verdict_of(verified).passed
    return ended(
        books,
        taken,
        trial.log,
        trial.budget,
        RotationEnded(
            verified.agent,
            verified.spec,
            verified.mode,
            verified.iteration,
            verified.iteration - trial.first,
            trial.allowed,
            verified.signal,
            len(taken.changes),
            3 if passed else 2,
            round(verified.seconds, 3),
            verified.note,
            dropped,
            matrix_rows(state),
            rotation_tally(verified.result),  # its usage counts on the panel like any rotation's
            checks=round(trial.checks_s, 3) if trial.checks_s else None,
        ),
    )


def verdict_of(outcome: Outcome) -> fv.Verdict:
    """Ralph's verdict on a final verification (its outcome always carries one)."""
    assert outcome.verdict is not None, "not a final verification's outcome"
    return outcome.verdict


def check_line(name: str, command: str, result: CheckResult) -> str:
    """One check ralph ran in a final verification, for its history log."""
    what = f" `{command}`" if command else ""
    verdict = "passed" if result.passed else "FAILED"
    output = f"{result.output}\n" if not result.passed and result.output else ""
    return f"\n# ralph ran {name}{what}: {verdict} ({result.summary})\n{output}"
