"""One rotation in two parts: `attempt` (prompt, agent, DONE gate: what a Ctrl-C may stop) and
`settle` (the tree taken after it, the outcome as values). The scheduler then folds the outcome
into its state (run/fold.py) and writes it in one step (run/ledger.py).

The steps that the final verification shares (the agent's request, running it) live here once.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ralph.agents.command import CommandAgent
from ralph.agents.request import AgentRequest
from ralph.agents.result import AgentResult
from ralph.checks.authorship import front_seen
from ralph.checks.gate import INTERRUPTED, DoneGate, Verdict
from ralph.checks.records import Record
from ralph.checks.specset import recorded
from ralph.process.request import StreamName
from ralph.rules.agents.budget import LatencyBudget
from ralph.rules.counts.spec import spec_slug
from ralph.rules.counts.state import BYPASSED, State
from ralph.rules.text.printable import clean_text
from ralph.rules.text.prompt import Mode, PromptInput, build_prompt
from ralph.rules.text.signals import VERDICTS, agent_words, parse_signal
from ralph.run.context import Shared
from ralph.run.events import (
    AgentOutput,
    Event,
    Notice,
    RotationEnded,
    RotationStarted,
    matrix_rows,
)
from ralph.run.facts import Fact, GateBypassed
from ralph.run.ledger import Books
from ralph.run.tree import Tree
from ralph.run.turn import Attempt, Outcome, Place, Turn
from ralph.specs.discovery import spec_file_hash
from ralph.store.disk.files import make_dirs, read_text, write_text_new
from ralph.store.records.journal import recent_errors, stamp
from ralph.store.records.rotationlog import RotationLog
from ralph.store.snapshots.snapshot import Snapshot


class Rotation:
    """One spec's rotations in one place (the project's tree, or a lane's worktree)."""

    def __init__(
        self, run: Shared, place: Place, tree: Tree, gate: Callable[[Record], DoneGate]
    ) -> None:
        # Of the run a rotation gets only what is fixed for it (a frozen value): its inputs
        # come with each call (`Turn`), its result goes back to the caller (`Outcome`).
        self.run = run
        self.place = place
        self.tree = tree
        self.gate = gate(self.emit)  # built complete: its records are the rotation's events

    @property
    def books(self) -> Books:
        """Where its outcome is written once folded (run/ledger.py): values, not the rotation."""
        return Books(self.run.ws, self.emit, self.tree, self.place.note)

    def emit(self, event: Event | Fact) -> None:
        """The run's one sink; a lane's events name the lane, its output lines the spec."""
        lane = self.place.lane
        if lane is not None:
            if isinstance(event, AgentOutput):  # lanes' output interleaves: each line says whose
                lines = tuple(f"{event.spec}: {x}" for x in event.lines)
                event = replace(event, lines=lines, lane=lane)
            elif isinstance(event, (RotationStarted, RotationEnded)):
                event = replace(event, lane=lane)
        self.run.emit(event)

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
        run, member = self.run, self.run.members[agent.name]
        observers = run.opts.observers
        trace = {} if observers is None else observers.trace_context(spec, iteration, mode)
        return AgentRequest(
            prompt=prompt,
            prompt_file=self.place.prompt_file,
            root=self.place.root,
            spec=spec,
            mode=mode,
            iteration=iteration,
            state_dir=run.ws.dir.resolve(),
            handoff_file=handoff.resolve(),
            timeout=member.timeout,
            idle_timeout=member.idle_timeout,
            kill_grace=member.kill_grace,
            specs=specs,
            secrets=run.opts.secrets,
            confined=run.opts.launcher.confined,
            trace=tuple(sorted(trace.items())),
        )

    def run_agent(
        self,
        agent: CommandAgent,
        request: AgentRequest,
        log: RotationLog,
        shown: str = "",
        stop: threading.Event | None = None,
    ) -> AgentResult:
        """The agent at work; its lines reach the displays tagged with the spec (`shown`, else
        the request's) and the rotation's number. `stop` set stops it (default: `ralph
        cancel --now`)."""
        spec = shown or request.spec

        def on_lines(stream: StreamName, lines: tuple[str, ...]) -> None:
            log.lines(stream, lines)  # the adapter's readable rendering; raw goes to history
            self.emit(AgentOutput(stream, lines, spec, request.iteration))

        try:
            return agent.run(
                request,
                on_lines,
                log.chunk,
                self.place.record_agent,
                cancel=stop if stop is not None else self.run.cancel.now,
            )
        except BaseException as exc:
            log.close(f"# ralph stopped the rotation: {exc!r}")
            raise

    # ------------------------------------------------------------------ one spec's rotation

    def attempt(self, turn: Turn) -> Attempt:
        """A rotation up to its verdict: prompt, agent, DONE gate. The part a Ctrl-C may stop
        (the agent is stopped, the checks too: the attempt says it was interrupted)."""
        run, ws, spec, mode = self.run, self.run.ws, turn.spec, turn.mode
        iteration, agent = turn.iteration, turn.agent
        budget = LatencyBudget(run.opts.config.latency_budget_ms)
        budget.record("rescan", (time.perf_counter() - turn.tick) * 1000)
        row = turn.state.get(spec.path)
        assert row is not None
        self.place.note(
            current_spec=spec.path,
            iteration=iteration,
            mode=mode,
            rotation_started=time.time(),
            agent=agent.name,
        )
        handoff = ws.handoff(spec_slug(spec.path))
        loan = self.place.notes.lend(spec_slug(spec.path)) if self.place.notes else None
        with budget.operation("prompt"):
            prompt = write_prompt(self, turn, row.done_count, handoff)
        started = time.time()
        log = RotationLog(
            ws.history_log(spec_slug(spec.path), iteration),
            self.place.current_log,
            f"# ralph rotation {iteration} [{mode}] {spec.path} agent={agent.name} "
            f"started={stamp(started)}",
            ws.records,
        )
        self.emit(
            RotationStarted(
                *(agent.name, spec.path, mode, iteration, iteration - turn.first),
                *(turn.limit - turn.first, started, matrix_rows(turn.state)),
                model=agent.model_for(mode),
            )
        )
        own = time.perf_counter() - turn.tick
        request = self.request(agent, prompt, spec.path, mode, iteration, handoff)
        try:
            result = self.run_agent(agent, request, log, stop=turn.stop)
        finally:  # what a lane's agent wrote reaches the run's notes before anything reads them
            for problem in loan.take_back() if loan else ():
                self.emit(Notice("warning", problem))
        signal_, note = signal_of(result, prompt, turn.stop, run.cancel.now)
        verdict = Verdict(signal_, note, result.process.interrupted)
        checks_s = 0.0
        if signal_ == "DONE":
            if _bypassed(turn.state, spec.path):
                self.emit(GateBypassed(iteration, spec.path))
            else:
                gated = time.perf_counter()
                verdict = self._gate(turn, result, prompt, handoff)
                checks_s = time.perf_counter() - gated
                if verdict.notice is not None:
                    self.emit(Notice("warning", verdict.notice))
                if verdict.interrupted and run.cancel.now.is_set():
                    note = "cancelled (ralph cancel --now) while running the DONE checks"
                    verdict = replace(verdict, note=note)
        return Attempt(
            turn=turn,
            signal=verdict.signal,
            note=verdict.note,
            interrupted=verdict.interrupted,
            result=result,
            judged=verdict.gate.judged if verdict.gate else (),  # what a judge spent: values
            halted=verdict.halted,
            counts=verdict.counts,
            best=verdict.best,
            handoff=handoff,
            log=log,
            budget=budget,
            started=started,
            own=own,
            checks_s=checks_s,
        )

    def settle(self, attempt: Attempt, before: Snapshot) -> Outcome:
        """The attempt as the outcome the scheduler folds: the tree taken after it, and what
        the gate keeps of the spec, read now as values. The caller holds interrupts from here
        until the outcome is written, so a Ctrl-C never falls between the tree taken and the
        outcome recorded."""
        turn, budget, signal_, note = attempt.turn, attempt.budget, attempt.signal, attempt.note
        tick = time.perf_counter()
        with budget.operation("snapshot"):
            taken = self.tree.after(before)
        # a DONE while the ignore rules wait for a person's say is refused
        held = self.tree.pending_rules() if signal_ == "DONE" else []
        if held:
            signal_, note = self.gate.refuse_rules(turn.spec, turn.iteration, attempt.handoff, held)
        root, spec = self.place.root, turn.spec
        return Outcome(
            spec=spec.path,
            mode=turn.mode,
            agent=turn.agent.name,
            iteration=turn.iteration,
            signal=signal_,
            note=note,
            interrupted=attempt.interrupted,
            result=attempt.result,
            taken=taken,
            spec_hash=spec_file_hash(root, spec.path),
            front=front_seen(root, spec),
            lane=self.place.lane,
            judged=attempt.judged,
            halted=attempt.halted,
            counts=attempt.counts,
            best=attempt.best,
            own=attempt.own + time.perf_counter() - tick,
            seconds=time.time() - attempt.started,
            ended=self.run.clock(),
        )

    def _gate(self, turn: Turn, result: AgentResult, prompt: str, handoff: Path) -> Verdict:
        """The verdict on a DONE: the checks run on the tree the agent left."""
        spec = turn.spec
        try:
            with self.run.cancel.linked() as stop:  # `ralph cancel --now` stops the checks too
                return self.gate.judge_done(
                    spec,
                    mode=turn.mode,
                    iteration=turn.iteration,
                    output=agent_words(result.output_text, prompt, result.final_text),
                    prompt=prompt,
                    tree=self.tree.key,
                    handoff=handoff,
                    judge=turn.judge,
                    row=turn.state.get(spec.path),
                    cancel=stop,
                    person_specs=recorded(turn.state),
                )
        except KeyboardInterrupt:
            return Verdict("ERROR", INTERRUPTED, True)  # no judge asked yet: none spent


def _bypassed(state: State, path: str) -> bool:
    """The user chose to go on without verification for this spec (a recorded risk)."""
    row = state.get(path)
    return row is not None and row.override == BYPASSED


def write_prompt(rotation: Rotation, turn: Turn, done_count: int, handoff: Path) -> str:
    """The agent's prompt, also written to the place's prompt file for whoever looks."""
    ws, answer, spec = rotation.run.ws, turn.answer, turn.spec
    prompt = build_prompt(
        PromptInput(
            spec_path=spec.path,
            spec_text=spec.text,
            mode=turn.mode,
            iteration=turn.iteration,
            max_iteration=turn.limit,
            done_count=done_count,
            handoff_path=ws.rel(handoff),
            handoff_text=read_text(handoff),
            guardrails_path=ws.rel(ws.guardrails),
            guardrails_text=read_text(ws.guardrails),
            other_specs=tuple(
                (s.path, s.done_count) for s in turn.state.specs if s.path != spec.path
            ),
            recent_errors=recent_errors(ws.errors_log),
            question=answer.question if answer else None,
            answer=answer.answer if answer else None,
            checks_text=rotation.gate.prompt_section(spec, turn.mode),
        )
    )
    return posted(rotation, prompt)


def posted(rotation: Rotation, prompt: str) -> str:
    """A prompt as the agent gets it, a spec's or a verifier's: it quotes files the agent wrote
    (handoff), so no secret and no escape sequence stay in it; written to the place's prompt
    file for whoever looks."""
    prompt = clean_text(rotation.run.redactor.text(prompt))
    make_dirs(rotation.place.prompt_file.parent)
    write_text_new(rotation.place.prompt_file, prompt)
    return prompt


def signal_of(
    result: AgentResult, prompt: str, stop: threading.Event, now: threading.Event
) -> tuple[str, str | None]:
    """The rotation's signal as recorded, and why (a fault, a failure, no signal); `now` is
    `ralph cancel --now`."""
    fault = result.fault
    if fault is not None and not result.process.interrupted:
        if fault.kind == "overflow":  # the work may go on in a fresh context: not a crash
            return "ROTATE", f"context overflow: {fault.message}"
        if fault.kind == "rate_limit":  # never DONE: the agent was cut off
            return "ERROR", f"rate limit: {fault.message}"
        return "ERROR", f"auth or configuration error: {fault.message}"
    failure = result.failure
    if failure is not None:
        if failure == "interrupted" and stop.is_set() and now.is_set():
            return "ERROR", "cancelled (ralph cancel --now)"
        return "ERROR", failure
    found = parse_signal(result.output_text, prompt, result.final_text)
    if found is None:
        return "NONE", "no signal in the agent's output; counted as CONTINUE"
    if found in VERDICTS:
        return "NONE", f"{found} only counts in a final verification; counted as CONTINUE"
    return found, None
