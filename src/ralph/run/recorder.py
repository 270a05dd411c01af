"""The one subscriber that writes what a run did: the worklog, progress.md, errors.log and the
handoff notes, each from the run's events and facts. Nothing else in the run writes them."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import fields
from pathlib import Path
from typing import Any

from ralph.checks.records import (
    BarMeasured,
    CheckRan,
    ClaimMoved,
    DoneRefused,
    GateDecided,
    JudgeSpent,
)
from ralph.rules.counts import breaker as breakers
from ralph.rules.counts.spec import spec_slug
from ralph.rules.counts.state import Tally, usage_to_json
from ralph.rules.counts.verification import SLUG as VERIFICATION_SLUG
from ralph.run import lanerecords
from ralph.run.events import Event, RotationStarted, RunEnded, RunStarted
from ralph.run.facts import (
    AnswerDelivered,
    BreakerChanged,
    BudgetSpent,
    Escalated,
    Fact,
    GateBypassed,
    LaneClosed,
    LaneConflict,
    LaneLeftOut,
    LaneMerged,
    LaneOpened,
    LimitsSeen,
    QuestionAsked,
    Reconciled,
    RotationRecorded,
    RunArchived,
    SpecBlocked,
    VerificationAnswered,
    VerificationEnded,
    VerificationStarted,
    WaitStarted,
)
from ralph.store.disk.files import redact_file
from ralph.store.disk.workspace import Workspace
from ralph.store.records.journal import (
    REFUSAL_END,
    REFUSAL_START,
    append_error,
    append_note,
    append_progress,
    drop_refusal_notes,
    drop_verification_notes,
    rotation_note,
    verification_note,
)
from ralph.store.records.worklog import append_worklog

OUTCOMES = {"accept": "user_accepted", "abort": "aborted", "continue": "bypassed"}

# The worklog line of each fact whose line is the fact itself: its name, the fields it leads
# with, then every field of the fact in its order (one schema, the dataclass's: a field added
# to the fact is in its line). The other facts' lines are written by their handlers.
LINES: dict[type, tuple[str, dict[str, object]]] = {
    SpecBlocked: ("spec_blocked", {}),
    AnswerDelivered: ("answer_delivered", {}),
    QuestionAsked: ("question", {}),
    ClaimMoved: ("claim_transition", {}),
    GateDecided: ("done_gate", {}),
    VerificationStarted: ("verification", {"transition": "started"}),
    VerificationAnswered: ("verification", {"transition": "answered"}),
    RunArchived: ("archived", {}),
    Reconciled: ("reconciled", {}),
    LaneOpened: ("lane_open", {}),
    LaneMerged: ("lane_merge", {}),
    LaneConflict: ("lane_conflict", {}),
    LaneLeftOut: ("lane_left_out", {}),
    LaneClosed: ("lane_close", {}),
}


def fields_of(fact: object) -> dict[str, object]:
    """A fact's fields as they are, in their order (tuples are written as JSON lists)."""
    return {f.name: getattr(fact, f.name) for f in fields(fact)}  # type: ignore[arg-type]


class Recorder:
    def __init__(
        self,
        ws: Workspace,
        agents: list[str],
        rotation: str,
        redact: Callable[[str], str] = str,
        earlier: Sequence[dict[str, Any]] = (),
    ) -> None:
        self.ws = ws
        # The agent writes its handoff, question and guardrails itself: what it copied into
        # them from its environment is redacted before anything else reads them (the next
        # prompt, the run's last message).
        self.redact = redact
        self.agents = agents  # the pool's names and policy: what run_start records
        # this run's records as written: its numbers come from them (rules/counts/runtotals.py). A
        # run that continues a killed one (`--continue`) is one run with it: its records first.
        self.records: list[dict[str, Any]] = list(earlier)
        self.continues = bool(earlier)
        self.rotation = rotation
        self._handlers: dict[type, Callable[[Any], None]] = {
            RunStarted: self._run_started,
            RunEnded: self._run_ended,
            RotationStarted: self._rotation_started,
            WaitStarted: self._wait_started,
            GateBypassed: self._gate_bypassed,
            RotationRecorded: self._rotation_recorded,
            BudgetSpent: self._budget_spent,
            BreakerChanged: self._breaker_changed,
            Escalated: self._escalated,
            CheckRan: self._check_ran,
            GateDecided: self._gate_decided,
            DoneRefused: self._done_refused,
            JudgeSpent: lambda e: _judge_spent(self, e),
            BarMeasured: lambda e: self.log("bar", command=e.command, seconds=round(e.seconds, 3)),
            LimitsSeen: lambda e: _limits_seen(self, e),
            VerificationAnswered: self._verification_answered,
            VerificationEnded: self._verification_ended,
            LaneMerged: lambda e: lanerecords.merged(self.ws, e),
            LaneConflict: lambda e: lanerecords.conflict(self.ws, e),
            LaneLeftOut: lambda e: lanerecords.left_out(self.ws, e),
        }

    def log(self, event: str, **fields: object) -> None:
        written = append_worklog((self.ws.worklog, self.ws.worklog_copy), event, **fields)
        self.records.append(written)

    def _redact_agent_files(self, handoff: Path) -> None:
        """The files the agent writes itself, before the next prompt quotes them."""
        for written in (handoff, self.ws.question, self.ws.guardrails):
            redact_file(written, self.redact)

    def handle(self, event: Event | Fact) -> None:
        handler = self._handlers.get(type(event))
        if handler is not None:  # events with nothing to record (agent output, notices...)
            handler(event)
        line = LINES.get(type(event))
        if line is not None:  # after what else it does (notes dropped, files redacted)
            name, leading = line
            self.log(name, **leading, **fields_of(event))

    def _run_started(self, e: RunStarted) -> None:
        self.log(
            "run_start",
            agent=e.agent,
            agents=self.agents,
            rotation=self.rotation,
            iteration=e.iteration,
            counts={row.path: row.done_count for row in e.matrix},  # as state.json has them
            **({"continues": True} if self.continues else {}),
        )

    def _run_ended(self, e: RunEnded) -> None:
        spent = usage_to_json(e.usage or Tally())
        self.log(
            "run_end",
            exit_code=e.exit_code,
            reason=e.reason,
            input_tokens=spent["input_tokens"],
            output_tokens=spent["output_tokens"],
            cost_usd=spent["cost_usd"],  # null when no rotation had a price, as everywhere
            totals=None if e.totals is None else e.totals.to_json(),
            counts={row.path: row.done_count for row in e.matrix},
        )

    def _rotation_started(self, e: RotationStarted) -> None:
        if e.mode != "VERIFY":  # a verification's start is recorded with its attempt
            lane = {"lane": e.lane} if e.lane is not None else {}  # `--parallel`: where it ran
            self.log(
                "rotation_start",
                iteration=e.iteration,
                spec=e.spec,
                mode=e.mode,
                agent=e.agent,
                **lane,
            )

    def _wait_started(self, e: WaitStarted) -> None:
        self.log("wait", until=round(e.until, 3), reason=e.reason)

    def _gate_bypassed(self, e: GateBypassed) -> None:
        self.log("gate_bypassed", iteration=e.iteration, spec=e.spec, risk=True)

    def _rotation_recorded(self, e: RotationRecorded) -> None:
        ws = self.ws
        self._redact_agent_files(ws.handoff(spec_slug(e.spec)))
        note = rotation_note(e.signal, e.note, e.fault, e.iteration, e.log)
        if note is not None and e.stderr:
            said = "\n".join(f"    {line}" for line in e.stderr)
            note += f"\n\nThe last lines it wrote on stderr:\n\n{said}\n"
        if note is not None:
            append_note(ws.handoff(spec_slug(e.spec)), note)
        if e.signal in breakers.FAILED:  # a failed rotation or a refused DONE
            what = f"failed: {e.note}" if e.signal == "ERROR" else (e.note or "DONE refused")
            append_error(
                ws.errors_log, f"rotation {e.iteration} {e.spec} [{e.mode}] {what} (log {e.log})"
            )
        append_progress(
            ws.progress,
            f"rotation {e.iteration} [{e.mode}] {e.spec}: {e.signal}, "
            f"{e.files_changed} file(s) changed, {e.done_count}/3"
            + (f" ({e.note})" if e.note else ""),
        )
        self.log("signal", iteration=e.iteration, spec=e.spec, signal=e.signal)
        paths = list(e.paths)
        self.log(
            "files_changed",
            iteration=e.iteration,
            spec=e.spec,
            count=e.files_changed,
            paths=paths,
        )
        self.log(
            "rotation_end",
            iteration=e.iteration,
            spec=e.spec,
            signal=e.signal,
            files_changed=e.files_changed,
            changed=paths,
            done_count=e.done_count,
            downgraded=list(e.downgraded),
            agent_s=round(e.agent_s, 3),
            checks_s=round(e.checks_s, 3),
            seconds=round(e.seconds, 3),
            overhead_ms=round(e.overhead_ms, 2),
            note=e.note,
            log=e.log,
            agent=e.agent,
            **e.usage,
        )

    def _budget_spent(self, e: BudgetSpent) -> None:
        self.log("budget", iteration=e.iteration, **e.budget)

    def _breaker_changed(self, e: BreakerChanged) -> None:
        lane = {} if e.lane is None else {"lane": e.lane}  # a lane's own breaker names it
        self.log(
            "breaker", before=e.before, after=e.after, reason=e.reason, failures=e.failures, **lane
        )
        if e.after == breakers.OPEN:
            reasons = "; ".join(e.reasons[-3:])
            whose = "" if e.lane is None else f" of {e.lane}'s lane"
            append_error(
                self.ws.errors_log, f"circuit breaker{whose} opened ({e.reason}): {reasons}"
            )

    def _escalated(self, e: Escalated) -> None:
        self.log(
            "escalation",
            subject=e.key,
            choice=e.choice,
            failures=e.failures,
            reasons=list(e.reasons),
            outcome="continued"
            if e.kind != "breaker" and e.choice == "continue"
            else OUTCOMES[e.choice],
            kind=e.kind,
        )
        append_progress(self.ws.progress, f"escalation on {e.subject}: the user chose {e.choice}")
        if e.choice == "continue" and e.kind == "breaker":
            append_error(self.ws.errors_log, f"risk: {e.subject} goes on without verification")

    def _check_ran(self, e: CheckRan) -> None:
        self.log("check", iteration=e.iteration, spec=e.spec, **e.outcome)

    def _gate_decided(self, e: GateDecided) -> None:
        if e.passed and not e.interrupted:  # the refusals are answered: stop repeating them
            slug = spec_slug(e.spec)
            drop_refusal_notes(self.ws.handoff(slug), self.ws.history / slug / "refused.md")

    def _done_refused(self, e: DoneRefused) -> None:
        append_note(
            e.handoff,
            f"rotation {e.iteration}: {REFUSAL_START} these checks failed:\n\n"
            + "\n".join(f"    {line}" for line in e.detail.splitlines())
            + f"\n\n{REFUSAL_END}",
        )

    def _verification_answered(self, e: VerificationAnswered) -> None:
        self._redact_agent_files(self.ws.handoff(VERIFICATION_SLUG))  # the verifier's report

    def _verification_ended(self, e: VerificationEnded) -> None:
        ws = self.ws
        which = f"final verification {e.attempt} (rotation {e.iteration})"
        append_progress(ws.progress, f"{which}: " + ("PASS" if e.passed else f"FAIL: {e.summary}"))
        if not e.passed:
            append_error(ws.errors_log, f"{which} failed: {e.summary} (log {e.log})")
            note = verification_note(which, e.summary, e.report, e.log)
            for spec in e.specs:
                append_note(ws.handoff(spec_slug(spec)), note)
        else:  # answered: the failures' notes move to each spec's history
            for slug in map(spec_slug, e.specs):
                drop_verification_notes(ws.handoff(slug), ws.history / slug / "verification.md")
        self.log(
            "verification",
            transition="passed" if e.passed else "failed",
            attempt=e.attempt,
            iteration=e.iteration,
            reasons=list(e.reasons),
            files_changed=e.files_changed,
            downgraded=list(e.downgraded),
            failures=e.failures,
            log=e.log,
            agent_s=round(e.agent_s, 3),
            checks_s=round(e.checks_s, 3),
            seconds=round(e.seconds, 3),
            **(e.usage or {}),
        )


def _limits_seen(rec: Recorder, e: LimitsSeen) -> None:
    """Each agent's newest report per limit window, for `ralph status` and `ralph agents`."""
    import time

    from ralph.rules.agents.limits import merged
    from ralph.store.records.limits import load_limits, save_limits

    now = time.time()
    save_limits(rec.ws.dir, merged(load_limits(rec.ws.dir), e.agent, e.limits, now))
    rec.log(
        "limits",
        agent=e.agent,
        windows=[
            {
                "window": lim.window,
                "utilization": lim.utilization,
                "resets_at": lim.resets_at,
                "status": lim.status,
            }
            for lim in e.limits
        ],
    )


def _judge_spent(rec: Recorder, e: JudgeSpent) -> None:
    u = e.usage
    rec.log(
        "judge",
        iteration=e.iteration,
        spec=e.spec,
        agent=e.agent,
        input_tokens=u.input_tokens if u else None,
        output_tokens=u.output_tokens if u else None,
        cost_usd=u.cost_usd if u else None,
    )
