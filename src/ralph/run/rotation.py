"""One rotation: snapshot, run the agent passed in, diff, signal, gate, record.

The steps that the final verification shares (running the agent, taking the tree after it,
saving the outcome before anything can stop it, the latency budget) live here once.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import NamedTuple

from ralph.agents.command import CommandAgent
from ralph.agents.request import AgentRequest
from ralph.agents.result import AgentResult
from ralph.checks.gate import DoneGate, Verdict
from ralph.checks.specset import recorded
from ralph.process.request import StreamName
from ralph.rules.budget import LatencyBudget
from ralph.rules.caps import count_rotation
from ralph.rules.matrix import record_rotation
from ralph.rules.prompt import Mode, PromptInput, build_prompt
from ralph.rules.signals import VERDICTS, agent_words, parse_signal
from ralph.rules.spec import Spec, spec_slug
from ralph.rules.state import State
from ralph.run.accounting import account, rotation_tally, usage_fields
from ralph.run.circuit import Circuit
from ralph.run.context import RunContext
from ralph.run.escalation import BYPASSED
from ralph.run.events import AgentOutput, Notice, RotationEnded
from ralph.run.facts import AnswerDelivered, BudgetSpent, GateBypassed, RotationRecorded
from ralph.run.interrupts import deferred_interrupts
from ralph.run.question import archive_answered
from ralph.run.recorder import FAILED_STATUSES
from ralph.run.tree import Taken, Tree
from ralph.specs.discovery import spec_file_hash
from ralph.store.files import read_text, write_text_new
from ralph.store.journal import recent_errors, stamp
from ralph.store.rotationlog import RotationLog
from ralph.store.snapshot import Changes, Snapshot


class Outcome(NamedTuple):
    after: Snapshot
    signal: str
    changed: bool
    interrupted: bool


class Rotation:
    def __init__(self, ctx: RunContext, tree: Tree, circuit: Circuit, gate: DoneGate) -> None:
        self.ctx = ctx
        self.tree = tree
        self.circuit = circuit
        self.gate = gate

    # ------------------------------------------------------------------ shared steps

    def request(
        self,
        agent: CommandAgent,
        prompt: str,
        spec: str,
        mode: Mode,
        iteration: int,
        handoff: Path,
        specs: tuple[str, ...] = (),
    ) -> AgentRequest:
        """What the agent is asked, with its pool member's time limits; for a rotation and for
        the final verification alike (the prompt file is written by the caller)."""
        ctx, member = self.ctx, self.ctx.members[agent.name]
        ctx.mode = mode  # whose work a judge then judges: this mode's model
        return AgentRequest(
            prompt=prompt,
            prompt_file=ctx.ws.prompt_file,
            root=ctx.opts.root,
            spec=spec,
            mode=mode,
            iteration=iteration,
            state_dir=ctx.ws.dir.resolve(),
            handoff_file=handoff.resolve(),
            timeout=member.timeout,
            idle_timeout=member.idle_timeout,
            kill_grace=member.kill_grace,
            specs=specs,
        )

    def run_agent(
        self, agent: CommandAgent, request: AgentRequest, log: RotationLog, shown: str = ""
    ) -> AgentResult:
        """The agent at work; its lines reach the displays tagged with the spec (`shown`, else
        the request's) and the rotation's number."""
        ctx, spec = self.ctx, shown or request.spec

        def on_lines(stream: StreamName, lines: tuple[str, ...]) -> None:
            log.lines(stream, lines)  # the adapter's readable rendering; raw goes to history
            ctx.emit(AgentOutput(stream, lines, spec, request.iteration))

        try:
            return agent.run(
                request, on_lines, log.chunk, ctx.lock.record_agent, cancel=ctx.cancel.now
            )
        except BaseException as exc:
            log.close(f"# ralph stopped the rotation: {exc!r}")
            raise

    def settle(
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
            taken = self.tree.after(before)
        with budget.operation("bookkeeping"):
            bookkeeping(taken.changes)
        with budget.operation("state_save"):
            self.ctx.save()
        if taken.failure is not None:
            log.close(f"# ralph could not take a snapshot: {taken.failure.message}")
            raise taken.failure
        assert taken.after is not None
        return taken.after, taken

    def keep(self, after: Snapshot, taken: Taken) -> None:
        """The tree the next rotation starts from; the agent's whole process tree is gone."""
        self.tree.save(after, taken.hidden)
        self.ctx.lock.update(agent_pid=None)

    def record_budget(self, iteration: int, budget: LatencyBudget) -> None:
        self.ctx.emit(BudgetSpent(iteration, budget.to_json()))
        if budget.exceeded:
            self.ctx.emit(
                Notice(
                    "warning",
                    f"ralph's own work in rotation {iteration} took {budget.used_ms:.0f} ms, "
                    f"over its {budget.total_ms:.0f} ms budget",
                )
            )

    # ------------------------------------------------------------------ one spec's rotation

    def __call__(self, spec: Spec, before: Snapshot, tick: float, agent: CommandAgent) -> Outcome:
        ctx, ws, opts = self.ctx, self.ctx.ws, self.ctx.opts
        budget = LatencyBudget(opts.latency_budget_ms)
        budget.record("rescan", (time.perf_counter() - tick) * 1000)
        row = ctx.state.get(spec.path)
        assert row is not None
        mode: Mode = "IMPLEMENT" if row.done_count == 0 else "REVIEW"
        iteration = ctx.number_next()
        ctx.state = replace(ctx.state, current_spec=spec.path)
        with budget.operation("state_save"):
            ctx.save()  # the rotation number is taken even if ralph dies during it
        ctx.lock.update(
            current_spec=spec.path,
            iteration=iteration,
            mode=mode,
            rotation_started=time.time(),
            agent=agent.name,
        )
        handoff = ws.handoff(spec_slug(spec.path))
        answer = ctx.answer
        with budget.operation("prompt"):
            prompt = self._prompt(spec, mode, iteration, row.done_count, handoff)
        started = time.time()
        log = RotationLog(
            ws.history_log(spec_slug(spec.path), iteration),
            ws.current_log,
            f"# ralph rotation {iteration} [{mode}] {spec.path} agent={agent.name} "
            f"started={stamp(started)}",
        )
        ctx.emit(ctx.started(agent.name, spec.path, mode, started))
        own = time.perf_counter() - tick
        request = self.request(agent, prompt, spec.path, mode, iteration, handoff)
        result = self.run_agent(agent, request, log)
        ctx.last_result = result
        signal_, note = self.judge(result, prompt)
        interrupted = result.process.interrupted
        if signal_ == "DONE":
            if _bypassed(ctx.state, spec.path):
                ctx.emit(GateBypassed(iteration, spec.path))
            else:
                verdict = self._gate(spec, mode, iteration, result, prompt, handoff)
                signal_, note, interrupted = verdict.signal, verdict.note, verdict.interrupted
                if interrupted and ctx.cancel.now.is_set():
                    note = "cancelled (ralph cancel --now) while running the DONE checks"
        downgraded: tuple[str, ...] = ()

        def bookkeeping(changes: Changes) -> None:
            nonlocal downgraded, signal_, note
            signal_, note = _unless_rules_wait(self, spec, iteration, handoff, signal_, note)
            ctx.state, downgraded = record_rotation(
                ctx.state, spec.path, signal_, bool(changes), spec_file_hash(opts.root, spec.path)
            )
            ctx.state = count_rotation(ctx.state, spec.path, mode)
            ctx.state = self.gate.track_front_matter(spec, ctx.state)
            ctx.state = self.gate.track_tests(spec, changes.paths, ctx.state)
            ctx.state = account(ctx.state, spec.path, agent.name, result, bool(changes))
            if not interrupted:  # the user stopped it: not the agent's fault
                self.circuit.feed(
                    signal_ not in FAILED_STATUSES,
                    f"rotation {iteration} on {spec.path}: {signal_}"
                    + (f" ({note})" if note else ""),
                    spec.path,
                )

        with deferred_interrupts():
            tick = time.perf_counter()
            after, taken = self.settle(before, log, budget, bookkeeping)
            changes = ctx.last_changes = taken.changes  # (the convergence watch reads them)
            with budget.operation("snapshot_save"):
                self.keep(after, taken)
            elapsed = time.time() - started
            done_count = row.done_count if (row := ctx.state.get(spec.path)) else 0
            with budget.operation("logs"):
                log.close(
                    f"# ended: signal={signal_} files_changed={len(changes)} "
                    f"elapsed={elapsed:.1f}s" + (f" note={note}" if note else "")
                )
                if answer is not None:
                    # delivered: a later rotation must not get the same answer again
                    moved = archive_answered(ws)
                    ctx.answer = None
                    ctx.emit(AnswerDelivered(ws.rel(moved)))
                paths = changes.paths[:50] if budget.optional("changed_paths") else ()
                own += time.perf_counter() - tick
                ctx.emit(
                    RotationRecorded(
                        iteration=iteration,
                        spec=spec.path,
                        mode=mode,
                        agent=agent.name,
                        signal=signal_,
                        note=note,
                        files_changed=len(changes),
                        paths=tuple(paths),
                        done_count=done_count,
                        downgraded=downgraded,
                        agent_s=result.process.elapsed,
                        overhead_ms=own * 1000,
                        log=ws.rel(log.path),
                        usage=usage_fields(result),
                        fault=result.fault,
                        stderr=result.stderr_lines() if signal_ == "ERROR" else (),
                    )
                )
            self.record_budget(iteration, budget)
            ctx.emit(
                RotationEnded(
                    *(agent.name, spec.path, mode, iteration, ctx.run_iteration, ctx.budget),
                    *(signal_, len(changes), done_count, round(elapsed, 3), note, downgraded),
                    ctx.rows(),
                    rotation_tally(result),
                )
            )
            self.circuit.announce()  # "circuit breaker open" after the line that opened it
        return Outcome(after, signal_, bool(changes), interrupted)

    def _prompt(
        self, spec: Spec, mode: Mode, iteration: int, done_count: int, handoff: Path
    ) -> str:
        """The agent's prompt, also written to .ralph/prompt.md for whoever looks."""
        ctx, ws, answer = self.ctx, self.ctx.ws, self.ctx.answer
        prompt = build_prompt(
            PromptInput(
                spec_path=spec.path,
                spec_text=spec.text,
                mode=mode,
                iteration=iteration,
                max_iteration=ctx.limit,
                done_count=done_count,
                handoff_path=ws.rel(handoff),
                handoff_text=read_text(handoff),
                guardrails_path=ws.rel(ws.guardrails),
                guardrails_text=read_text(ws.guardrails),
                other_specs=tuple(
                    (s.path, s.done_count) for s in ctx.state.specs if s.path != spec.path
                ),
                recent_errors=recent_errors(ws.errors_log),
                question=answer.question if answer else None,
                answer=answer.answer if answer else None,
                checks_text=self.gate.prompt_section(spec, mode),
            )
        )
        prompt = ctx.redactor.text(prompt)  # it quotes files the agent wrote (handoff)
        write_text_new(ws.prompt_file, prompt)
        return prompt

    def judge(self, result: AgentResult, prompt: str) -> tuple[str, str | None]:
        fault = result.fault
        if fault is not None and not result.process.interrupted:
            if fault.kind == "overflow":  # the work may go on in a fresh context: not a crash
                return "ROTATE", f"context overflow: {fault.message}"
            if fault.kind == "rate_limit":  # never DONE: the agent was cut off
                return "ERROR", f"rate limit: {fault.message}"
            return "ERROR", f"auth or configuration error: {fault.message}"
        failure = result.failure
        if failure is not None:
            if failure == "interrupted" and self.ctx.cancel.now.is_set():
                return "ERROR", "cancelled (ralph cancel --now)"
            return "ERROR", failure
        found = parse_signal(result.output_text, prompt, result.final_text)
        if found is None:
            return "NONE", "no signal in the agent's output; counted as CONTINUE"
        if found in VERDICTS:
            return "NONE", f"{found} only counts in a final verification; counted as CONTINUE"
        return found, None

    def _gate(
        self,
        spec: Spec,
        mode: Mode,
        iteration: int,
        result: AgentResult,
        prompt: str,
        handoff: Path,
    ) -> Verdict:
        """The verdict on a DONE: the checks run on the tree the agent left."""
        row = self.ctx.state.get(spec.path)
        try:
            with self.ctx.cancel.linked() as stop:  # `ralph cancel --now` stops the checks too
                return self.gate.judge_done(
                    spec,
                    mode=mode,
                    iteration=iteration,
                    output=agent_words(result.output_text, prompt, result.final_text),
                    prompt=prompt,
                    tree=self.tree.key,
                    handoff=handoff,
                    row=row,
                    cancel=stop,
                    person_specs=recorded(self.ctx.state),
                )
        except KeyboardInterrupt:
            return Verdict("ERROR", "interrupted while running the DONE checks", True)


def _unless_rules_wait(
    rotation: Rotation, spec: Spec, iteration: int, handoff: Path, signal: str, note: str | None
) -> tuple[str, str | None]:
    """A DONE while the ignore rules wait for a person's say (on the tree the agent left, the
    rule files included) is refused."""
    held = rotation.tree.pending_rules() if signal == "DONE" else []
    return rotation.gate.refuse_rules(spec, iteration, handoff, held) if held else (signal, note)


def _bypassed(state: State, path: str) -> bool:
    """The user chose to go on without verification for this spec (a recorded risk)."""
    row = state.get(path)
    return row is not None and row.override == BYPASSED
