"""`ralph run`: wires the pure core (schedule, matrix, signals, prompt) to the edges."""

from __future__ import annotations

import contextlib
import signal
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import FrameType
from typing import NoReturn

from ralph.agents.command import CommandAgent
from ralph.agents.member import Member
from ralph.agents.output import Stream
from ralph.agents.request import AgentRequest
from ralph.agents.result import AgentFault, AgentResult
from ralph.checks.command import run_command
from ralph.checks.gate import DoneGate, Verdict, validate_front_matter
from ralph.checks.result import CheckResult
from ralph.errors import AgentError, AgentsExhausted, ExitCode, StateError
from ralph.rules import breaker as breakers
from ralph.rules import verification as fv
from ralph.rules.budget import DEFAULT_BUDGET_MS, LatencyBudget
from ralph.rules.caps import count_rotation, mark_blocked
from ralph.rules.matrix import Rescan, downgrade_verified, reconcile, record_rotation
from ralph.rules.pool import (
    Choice,
    Exhausted,
    Pick,
    Pool,
    PoolPolicy,
    Wait,
    after_rotation,
    choose,
    clock,
    describe,
    release_due,
)
from ralph.rules.prompt import (
    Mode,
    PromptInput,
    VerifyInput,
    build_prompt,
    build_verification_prompt,
)
from ralph.rules.schedule import next_spec
from ralph.rules.signals import VERDICTS, agent_words, parse_signal
from ralph.rules.spec import Spec, spec_slug
from ralph.rules.state import State, Tally
from ralph.rules.usage import minus, over_budget, record_usage
from ralph.run.escalation import BYPASSED, Decide, Escalation, apply_choice
from ralph.run.events import (
    AgentOutput,
    Event,
    Notice,
    PoolChanged,
    RotationEnded,
    RotationStarted,
    RunEnded,
    RunStarted,
    SpecRow,
    Waiting,
)
from ralph.run.question import (
    QuestionAndAnswer,
    answered,
    archive_answered,
    pending,
    shown,
    write_fallback_question,
)
from ralph.specs.discovery import discover_specs, find_spec_paths, spec_file_hash
from ralph.specs.frontmatter import ExternalConfig
from ralph.store.archive import archive_run
from ralph.store.cancel import CancelWatch
from ralph.store.files import load_json, read_text, write_json_atomic
from ralph.store.journal import append_error, append_note, append_progress, recent_errors, stamp
from ralph.store.rotationlog import RotationLog
from ralph.store.runlock import RunLock
from ralph.store.snapshot import Changes, Snapshot, Snapshotter
from ralph.store.state import load_state, save_state
from ralph.store.worklog import append_worklog
from ralph.store.workspace import Workspace

Emit = Callable[[Event], None]
STOPPING = {"STUCK": "the agent is stuck", "QUESTION": "the agent has a question"}
WAIT_TICK = 60.0  # seconds between countdown events while waiting for a rate limit to reset
AUTH_HINT = (
    "log the agent in (or fix its API key or configuration: run it once by hand to see), "
    "then run ralph again"
)
# Outcomes that count as failures for the circuit breaker (REFUSED: a DONE the checks refused).
FAILED_STATUSES = frozenset({"ERROR", "REFUSED"})


@dataclass(frozen=True)
class RunOptions:
    root: Path
    pool: tuple[Member, ...]  # one agent or more, each with its own limits
    max_iterations: int
    policy: PoolPolicy = field(default_factory=PoolPolicy)
    max_cost: float | None = None  # USD this run may spend, as the agents report it
    max_tokens: int | None = None  # tokens (in + out) this run may use
    # Files ralph itself writes into the tree at the end of a run (--junit, --report-json):
    # the next run must not take them for changes made while ralph was not running.
    own_files: tuple[str, ...] = ()
    final_verification: bool = True
    max_verification_failures: int = 3
    test_command: str | None = None  # run by ralph itself in the final verification
    test_timeout: float | None = 1800.0
    breaker_threshold: int = breakers.DEFAULT_THRESHOLD
    breaker_cooldown: float = breakers.DEFAULT_COOLDOWN
    decide: Decide | None = None  # asks the user when the breaker opens; None: abort
    latency_budget_ms: float = DEFAULT_BUDGET_MS

    @property
    def label(self) -> str:
        return ", ".join(m.name for m in self.pool)


def matrix_rows(state: State) -> tuple[SpecRow, ...]:
    return tuple(
        SpecRow(s.path, s.done_count, s.last_status, s.modified_files) for s in state.specs
    )


def run_loop(opts: RunOptions, emit: Emit) -> int:
    """Run rotations until every spec is verified or a stop condition; returns the exit code."""
    ws = Workspace(opts.root)
    ws.check()
    # no specs, or a spec with invalid front matter: say so before creating anything
    validate_front_matter(discover_specs(opts.root))
    with (
        RunLock(ws.dir, agent=opts.label, agents=[m.name for m in opts.pool]) as lock,
        _stop_signals_as_interrupt(),
        CancelWatch(ws.dir) as cancel,
    ):
        ws.ensure()
        return _Run(opts, ws, emit, lock, cancel).run()


class _Run:
    def __init__(
        self, opts: RunOptions, ws: Workspace, emit: Emit, lock: RunLock, cancel: CancelWatch
    ) -> None:
        self.lock = lock
        self.cancel = cancel
        self.opts = opts
        self.ws = ws
        self._display: Emit | None = emit
        self.members = {m.name: m for m in opts.pool}
        self.pool = Pool.of(list(self.members))
        self.member = opts.pool[0]  # the agent of the current (or next) rotation
        self.agent = self.member.agent
        self.last_result: AgentResult | None = None  # of the last rotation, for the pool
        self.state = load_state(ws.state_file)  # refuses a damaged file before anything runs
        self.usage_at_start = self.state.usage  # budgets count what this run spends
        self.snapshotter = Snapshotter(opts.root)
        self.limit = self.state.iteration + opts.max_iterations  # this run stops there
        self.hidden: dict[str, str] = {}  # hashes of the specs under .ralph/specs/
        # The judge of semantic checks: another agent of the pool than the coder, when it has one.
        self.gate = DoneGate(opts.root, ws, self._reviewer)
        self.answer: QuestionAndAnswer | None = None  # delivered with the next prompt
        self.escalate_now = False  # the last outcome opened the circuit breaker

    def emit(self, event: Event) -> None:
        """Tell the display; a display that can no longer write (the terminal was closed, a
        pipe reader went away) is dropped rather than allowed to stop the run."""
        if self._display is None:
            return
        try:
            self._display(event)
        except OSError:
            self._display = None

    def save(self) -> None:
        # never half a save: an interrupt waits for it (the atomic write leaves no temp file)
        with _deferred_interrupts():
            save_state(self.ws.state_file, self.state)

    def end(self, code: ExitCode, reason: str) -> int:
        spent = self.spent()
        self.emit(RunEnded(int(code), reason, self.state.iteration, self.limit, self.rows(), spent))
        append_worklog(
            self.ws.worklog,
            "run_end",
            exit_code=int(code),
            reason=reason,
            input_tokens=spent.input_tokens,
            output_tokens=spent.output_tokens,
            cost_usd=round(spent.cost_usd, 6),
        )
        return int(code)

    def spent(self) -> Tally:
        """What this run has spent so far, as the agents reported it."""
        return minus(self.state.usage, self.usage_at_start)

    def rows(self) -> tuple[SpecRow, ...]:
        return matrix_rows(self.state)

    def rescan(self) -> tuple[list[Spec], tuple[str, ...]]:
        specs = discover_specs(self.opts.root)  # SpecError when every spec was removed
        scan = reconcile(self.state, specs)
        self.state = scan.state
        self.report(scan, added=True)
        return specs, scan.added

    def report(self, scan: Rescan, *, added: bool) -> None:
        if added:
            for path in scan.added:
                self.emit(Notice("info", f"new spec: {path}"))
        for path in scan.removed:
            self.emit(Notice("info", f"spec removed: {path}"))
        for path in scan.modified:
            self.emit(Notice("warning", f"spec changed: {path} goes back to 0/3"))

    def run(self) -> int:
        ws = self.ws
        specs = discover_specs(self.opts.root)
        had_specs = bool(self.state.specs)
        scan = reconcile(self.state, specs)
        self.state = scan.state
        before = self.snapshotter.take()
        self.hidden = hidden_spec_hashes(self.opts.root)
        dropped = self._compare_with_last_run(before)
        self.state = replace(self.state, max_iteration=self.limit)
        self.save()
        self._save_snapshot(before, self.hidden)
        append_worklog(
            ws.worklog,
            "run_start",
            agent=self.opts.label,
            agents=list(self.members),
            rotation=self.opts.policy.rotation,
            iteration=self.state.iteration,
        )
        self.emit(RunStarted(self.opts.label, self.state.iteration, self.limit, self.rows()))
        if len(self.members) > 1:
            self.emit(PoolChanged(self.pool.seats))
        self.report(scan, added=had_specs)
        if dropped:
            self.emit(
                Notice(
                    "warning",
                    f"files changed since the last run: {', '.join(dropped)} 3/3 -> 2/3",
                )
            )
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
            if self.state.complete:
                code, before = self._complete(specs, before)
                if code is not None:
                    return code
                current, switch, new = None, False, ()  # the failed verification's findings
                continue
            if self.cancel.requested:
                return self.end(
                    ExitCode.INTERRUPTED,
                    "cancelled (ralph cancel): stopped after the current rotation",
                )
            if self.state.iteration >= self.limit:
                return self.end(
                    ExitCode.MAX_ITERATIONS,
                    f"max iterations reached ({self.opts.max_iterations} rotations this run)",
                )
            reason = over_budget(self.spent(), self.opts.max_cost, self.opts.max_tokens)
            if reason is not None:
                return self.end(ExitCode.MAX_ITERATIONS, reason)
            runnable = self._unblocked(specs)
            path = next_spec(runnable, self.state, current, switch=switch, new=new)
            if path is None:  # every spec that needs work is at an iteration cap
                return self.end(ExitCode.MAX_ITERATIONS, self._blocked_reason())
            spec = next(s for s in specs if s.path == path)
            choice = self._choose_agent(spec)
            if isinstance(choice, Wait):
                stopped = self._wait(choice)
                if stopped is not None:
                    return stopped
                continue  # re-scan and choose again: specs may have changed meanwhile
            if isinstance(choice, Exhausted):
                self._exhausted(choice)  # raises: with no agent left, there is nothing to ask
            stop = self._admit()
            if stop is not None:
                return stop
            self._use(choice)
            outcome = self._rotation(spec, before, tick)
            before, signal_, changed, interrupted = outcome
            if interrupted:
                if self.cancel.now.is_set():
                    return self.end(
                        ExitCode.INTERRUPTED,
                        "cancelled now (ralph cancel --now): the agent was stopped and the "
                        "rotation recorded as ERROR",
                    )
                return self.end(
                    ExitCode.INTERRUPTED, "interrupted; the rotation was recorded as ERROR"
                )
            self._settle_agent()
            if signal_ == "QUESTION":
                return self._stop_for_question(path)
            if signal_ in STOPPING:
                return self.end(ExitCode.NEEDS_HUMAN, f"{STOPPING[signal_]} on {path}")
            stop = self._escalate_if_open()
            if stop is not None:
                return stop
            current = path
            switch = signal_ == "DONE" and not changed

    # ------------------------------------------------------------------ the agent pool

    def _choose_agent(self, spec: Spec) -> Choice:
        """The agent for the next rotation of `spec`, or a wait, or why the run must stop."""
        row = self.state.get(spec.path)
        review = row is not None and row.done_count > 0
        avoid = row.last_changed_by if row is not None else None
        now = time.time()
        released = release_due(self.pool, now)
        if released != self.pool:
            self.pool = released
            self._pool_changed()
        return choose(self.pool, self.opts.policy, now, review=review, avoid=avoid)

    def _reviewer(self) -> CommandAgent:
        """The agent that judges a semantic check: another available agent of the pool than
        the one whose DONE is judged, when there is one (the pool's rotation is not moved)."""
        now = time.time()
        others = [s.name for s in self.pool.seats if s.available(now) and s.name != self.agent.name]
        return self.members[others[0]].agent if others else self.agent

    def _use(self, pick: Pick) -> None:
        self.pool = pick.pool
        self.member = self.members[pick.name]
        self.agent = self.member.agent

    def _exhausted(self, out: Exhausted) -> NoReturn:
        """Stop the run: every agent is out. Recorded like any end, then raised as the error
        the user sees (exit 4 with when to retry, or exit 1 when every agent was evicted)."""
        if out.evicted:
            self.end(ExitCode.ERROR, out.reason)
            raise AgentError(
                out.reason,
                "see the agents' logs under .ralph/history/, fix what fails, then run again",
            )
        retry = f"after {clock(out.retry_at)}" if out.retry_at is not None else "later"
        self.end(ExitCode.AGENTS_EXHAUSTED, f"{out.reason}; retry {retry}")
        raise AgentsExhausted(out.reason, f"run ralph again {retry}")

    def _wait(self, wait: Wait) -> int | None:
        """Sleep until an agent's limit resets, telling the displays; Ctrl-C ends the run."""
        # The worklog's record comes last: whoever sees it can rely on the display's line and
        # on run.json saying the run waits.
        next_tick = time.time() + WAIT_TICK
        try:
            self.emit(Waiting(wait.until, wait.reason))
            self._note_run(waiting_until=wait.until, current_spec=None)
            append_worklog(self.ws.worklog, "wait", until=round(wait.until, 3), reason=wait.reason)
            while (left := wait.until - time.time()) > 0:
                if self.cancel.requested:  # `ralph cancel`, with or without --now
                    return self.end(
                        ExitCode.INTERRUPTED,
                        "cancelled (ralph cancel) while waiting for a rate limit to reset",
                    )
                time.sleep(min(left, 0.5))
                if time.time() >= next_tick and wait.until - time.time() > 0:
                    self.emit(Waiting(wait.until, wait.reason))
                    next_tick += WAIT_TICK
            self._note_run(waiting_until=None)
        except KeyboardInterrupt:
            return self.end(
                ExitCode.INTERRUPTED, "interrupted while waiting for a rate limit to reset"
            )
        return None

    def _settle_agent(self) -> None:
        """The pool after the rotation: bench a rate-limited agent, count or clear failures,
        evict after too many; an auth error ends the run (it would fail every time)."""
        result = self.last_result
        if result is None:
            return
        name, now = self.agent.name, time.time()
        fault = result.fault
        if fault is not None and fault.kind == "auth":
            reason = f"{name}: {fault.message}"
            self.end(ExitCode.ERROR, f"auth or configuration error from {reason}")
            raise AgentError(f"{name} refused to run: {fault.message}", AUTH_HINT)
        policy = self.opts.policy
        if fault is not None and fault.kind == "rate_limit":
            self.pool = after_rotation(
                self.pool,
                policy,
                name,
                "rate_limited",
                now,
                resets_at=fault.resets_at,
                reason=fault.message,
            )
            seat = self.pool.seat(name)
            self.emit(Notice("warning", f"{describe(seat)}: {fault.message}"))
        elif fault is None and result.failure is not None:  # an overflow is not a crash
            self.pool = after_rotation(
                self.pool, policy, name, "failed", now, reason=result.failure
            )
            seat = self.pool.seat(name)
            if seat.evicted:
                self.emit(
                    Notice(
                        "warning",
                        f"{name} leaves the pool after {seat.failures} failed rotations "
                        f"in a row (last: {result.failure})",
                    )
                )
        else:
            self.pool = after_rotation(self.pool, policy, name, "ok", now)
        self._pool_changed()

    def _note_run(self, **info: object) -> None:
        """run.json gets the pool's news; Ctrl-C waits for the write (no stray temp file)."""
        with _deferred_interrupts():
            self.lock.update(**info)

    def _pool_changed(self) -> None:
        self._note_run(
            pool=[
                {"name": s.name, "status": describe(s), "failures": s.failures}
                for s in self.pool.seats
            ]
        )
        if len(self.members) > 1 or any(not s.available(time.time()) for s in self.pool.seats):
            self.emit(PoolChanged(self.pool.seats))

    def _unblocked(self, specs: list[Spec]) -> list[Spec]:
        """The specs that may run: those at an iteration cap of their front matter are
        recorded as blocked (for `ralph status`) and skipped; the others go on."""
        for error in self.gate.new_errors(specs):
            self.emit(Notice("warning", f"{error}: its DONEs are refused until it is fixed"))
        blocked = self.gate.blocked(specs, self.state)
        marked = mark_blocked(self.state, blocked)
        if marked != self.state:
            before = {s.path: s.blocked for s in self.state.specs}
            self.state = marked
            self.save()
            for path, reason in blocked.items():
                if before.get(path) != reason:  # newly stopped: say so once
                    self.emit(Notice("warning", f"{path} stopped: {reason}"))
                    append_worklog(self.ws.worklog, "spec_blocked", spec=path, reason=reason)
        return [s for s in specs if s.path not in blocked]

    def _blocked_reason(self) -> str:
        blocked = [f"{s.path} ({s.blocked})" for s in self.state.specs if s.blocked]
        return "iteration cap reached: " + ", ".join(blocked)

    def _tree_key(self) -> str | None:
        """The tree as it is now, as a key for the check cache; None when unknown."""
        import hashlib
        import json

        try:
            snap = self.snapshotter.take()
        except StateError:
            return None
        data = [snap.to_json(), hidden_spec_hashes(self.opts.root)]
        return hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()

    def _bypassed(self, path: str) -> bool:
        """The user chose to go on without verification for this spec (a recorded risk)."""
        row = self.state.get(path)
        return row is not None and row.override == BYPASSED

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
        row = self.state.get(spec.path)
        try:
            with self.cancel.linked() as stop:  # `ralph cancel --now` stops the checks too
                return self.gate.judge_done(
                    spec,
                    mode=mode,
                    iteration=iteration,
                    output=agent_words(result.output_text, prompt, result.final_text),
                    prompt=prompt,
                    tree=self._tree_key,
                    handoff=handoff,
                    agent_front_matter=row.agent_front_matter if row else None,
                    cancel=stop,
                )
        except KeyboardInterrupt:
            return Verdict("ERROR", "interrupted while running the DONE checks", True)

    def _compare_with_last_run(self, now: Snapshot) -> tuple[str, ...]:
        """Files changed while ralph was not running: verified specs need one more review.

        A missing or unreadable snapshot proves nothing, so after a first rotation it counts
        as a change; only a project ralph never ran in has nothing to compare with.
        """
        if not self.ws.snapshot_file.exists() and self.state.iteration == 0:
            return ()
        try:
            data = load_json(self.ws.snapshot_file, ".ralph/snapshot.json")
            if not isinstance(data, dict):
                raise StateError("snapshot.json: not an object")
            last = Snapshot.from_json(data.get("tree"))
            hidden = data.get("hidden_specs")
        except StateError:
            last, hidden = None, None
        if last is not None and hidden == self.hidden:
            changed = self.snapshotter.diff(last, now).paths
            if all(path in self.opts.own_files for path in changed):
                return ()
        self.state, dropped = downgrade_verified(self.state)
        return dropped

    def _save_snapshot(self, snap: Snapshot, hidden: dict[str, str]) -> None:
        """The tree as of the last recorded rotation, with the specs no snapshot includes."""
        self.hidden = hidden
        write_json_atomic(self.ws.snapshot_file, {"tree": snap.to_json(), "hidden_specs": hidden})

    def _rotation(
        self, spec: Spec, before: Snapshot, tick: float
    ) -> tuple[Snapshot, str, bool, bool]:
        ws, opts = self.ws, self.opts
        budget = LatencyBudget(opts.latency_budget_ms)
        budget.record("rescan", (time.perf_counter() - tick) * 1000)
        row = self.state.get(spec.path)
        assert row is not None
        mode: Mode = "IMPLEMENT" if row.done_count == 0 else "REVIEW"
        iteration = self.state.iteration + 1
        self.state = replace(self.state, iteration=iteration, current_spec=spec.path)
        with budget.operation("state_save"):
            self.save()  # the rotation number is taken even if ralph dies during it
        self.lock.update(
            current_spec=spec.path,
            iteration=iteration,
            mode=mode,
            rotation_started=time.time(),
            agent=self.agent.name,
        )
        slug = spec_slug(spec.path)
        handoff = ws.handoff(slug)
        answer = self.answer
        with budget.operation("prompt"):
            prompt = build_prompt(
                PromptInput(
                    spec_path=spec.path,
                    spec_text=spec.text,
                    mode=mode,
                    iteration=iteration,
                    max_iteration=self.limit,
                    done_count=row.done_count,
                    handoff_path=ws.rel(handoff),
                    handoff_text=read_text(handoff),
                    guardrails_path=ws.rel(ws.guardrails),
                    guardrails_text=read_text(ws.guardrails),
                    other_specs=tuple(
                        (s.path, s.done_count) for s in self.state.specs if s.path != spec.path
                    ),
                    recent_errors=recent_errors(ws.errors_log),
                    question=answer.question if answer else None,
                    answer=answer.answer if answer else None,
                    checks_text=self.gate.prompt_section(spec, mode),
                )
            )
            ws.prompt_file.write_text(prompt, encoding="utf-8")
        started = time.time()
        log = RotationLog(
            ws.history_log(slug, iteration),
            ws.current_log,
            f"# ralph rotation {iteration} [{mode}] {spec.path} agent={self.agent.name} "
            f"started={stamp(started)}",
        )
        self.emit(
            RotationStarted(
                self.agent.name, spec.path, mode, iteration, self.limit, started, self.rows()
            )
        )
        append_worklog(
            ws.worklog,
            "rotation_start",
            iteration=iteration,
            spec=spec.path,
            mode=mode,
            agent=self.agent.name,
        )
        own = time.perf_counter() - tick
        request = AgentRequest(
            prompt=prompt,
            prompt_file=ws.prompt_file,
            root=opts.root,
            spec=spec.path,
            mode=mode,
            iteration=iteration,
            state_dir=ws.dir.resolve(),
            handoff_file=handoff.resolve(),
            timeout=self.member.timeout,
            idle_timeout=self.member.idle_timeout,
            kill_grace=self.member.kill_grace,
        )
        result = self._run_agent(request, log)
        self.last_result = result
        signal_, note = self._judge(result, prompt)
        interrupted = result.process.interrupted
        if signal_ == "DONE":
            if self._bypassed(spec.path):
                append_worklog(
                    ws.worklog, "gate_bypassed", iteration=iteration, spec=spec.path, risk=True
                )
            else:
                verdict = self._gate(spec, mode, iteration, result, prompt, handoff)
                signal_, note, interrupted = verdict.signal, verdict.note, verdict.interrupted
                if interrupted and self.cancel.now.is_set():
                    note = "cancelled (ralph cancel --now) while running the DONE checks"
        with _deferred_interrupts():
            tick = time.perf_counter()
            # Nothing may stop the rotation from being recorded before the state is saved:
            # a failed snapshot counts as "changed" and is raised only afterwards.
            failure: StateError | None = None
            after: Snapshot | None = None
            with budget.operation("snapshot"):
                try:
                    after = self.snapshotter.take()
                    changes = self.snapshotter.diff(before, after)
                except StateError as exc:
                    failure = exc
                    changes = Changes((f"(snapshot failed: {exc.message})",))
                hidden = hidden_spec_hashes(opts.root)
                changes = _with_hidden_spec_changes(changes, self.hidden, hidden)
            with budget.operation("bookkeeping"):
                self.state, downgraded = record_rotation(
                    self.state,
                    spec.path,
                    signal_,
                    bool(changes),
                    spec_file_hash(opts.root, spec.path),
                )
                self.state = count_rotation(self.state, spec.path, mode)
                self.state = self.gate.track_front_matter(spec, self.state)
                self.state = _account(self.state, spec.path, self.agent.name, result, bool(changes))
                if not interrupted:  # the user stopped it: not the agent's fault
                    self._feed_breaker(
                        signal_ not in FAILED_STATUSES,
                        f"rotation {iteration} on {spec.path}: {signal_}"
                        + (f" ({note})" if note else ""),
                        spec.path,
                    )
            with budget.operation("state_save"):
                self.save()
            if failure is not None:
                log.close(f"# ralph could not take a snapshot: {failure.message}")
                raise failure
            assert after is not None
            with budget.operation("snapshot_save"):
                self._save_snapshot(after, hidden)
            self.lock.update(agent_pid=None)  # the agent's whole tree is gone by now
            handoff_note = _handoff_note(signal_, note, result.fault, iteration, ws.rel(log.path))
            if handoff_note is not None:
                append_note(handoff, handoff_note)
            elapsed = time.time() - started
            now = self.state.get(spec.path)
            done_count = now.done_count if now else 0
            with budget.operation("logs"):
                if signal_ in FAILED_STATUSES:  # a failed rotation or a refused DONE
                    what = f"failed: {note}" if signal_ == "ERROR" else (note or "DONE refused")
                    append_error(
                        ws.errors_log,
                        f"rotation {iteration} {spec.path} [{mode}] {what} "
                        f"(log {ws.rel(log.path)})",
                    )
                log.close(
                    f"# ended: signal={signal_} files_changed={len(changes)} "
                    f"elapsed={elapsed:.1f}s" + (f" note={note}" if note else "")
                )
                if answer is not None:
                    # delivered: a later rotation must not get the same answer again
                    moved = archive_answered(ws)
                    self.answer = None
                    append_worklog(ws.worklog, "answer_delivered", archived=ws.rel(moved))
                append_progress(
                    ws.progress,
                    f"rotation {iteration} [{mode}] {spec.path}: {signal_}, "
                    f"{len(changes)} file(s) changed, {done_count}/3"
                    + (f" ({note})" if note else ""),
                )
                append_worklog(
                    ws.worklog, "signal", iteration=iteration, spec=spec.path, signal=signal_
                )
                paths = list(changes.paths[:50]) if budget.optional("changed_paths") else []
                append_worklog(
                    ws.worklog,
                    "files_changed",
                    iteration=iteration,
                    spec=spec.path,
                    count=len(changes),
                    paths=paths,
                )
            own += time.perf_counter() - tick
            append_worklog(
                ws.worklog,
                "rotation_end",
                iteration=iteration,
                spec=spec.path,
                signal=signal_,
                files_changed=len(changes),
                changed=paths,
                done_count=done_count,
                downgraded=list(downgraded),
                agent_s=round(result.process.elapsed, 3),
                overhead_ms=round(own * 1000, 2),
                note=note,
                log=ws.rel(log.path),
                agent=self.agent.name,
                **_usage_fields(result),
            )
            self._record_budget(iteration, budget)
            self.emit(
                RotationEnded(
                    self.agent.name,
                    spec.path,
                    mode,
                    iteration,
                    self.limit,
                    signal_,
                    len(changes),
                    done_count,
                    elapsed,
                    note,
                    downgraded,
                    self.rows(),
                    _rotation_tally(result),
                )
            )
        return after, signal_, bool(changes), interrupted

    def _run_agent(
        self, request: AgentRequest, log: RotationLog, agent: CommandAgent | None = None
    ) -> AgentResult:
        def on_lines(stream: Stream, lines: tuple[str, ...]) -> None:
            log.lines(stream, lines)  # the adapter's readable rendering; raw goes to history
            self.emit(AgentOutput(stream, lines))

        try:
            return (agent or self.agent).run(
                request, on_lines, log.chunk, self.lock.record_agent, cancel=self.cancel.now
            )
        except BaseException as exc:
            log.close(f"# ralph stopped the rotation: {exc!r}")
            raise

    def _judge(self, result: AgentResult, prompt: str) -> tuple[str, str | None]:
        fault = result.fault
        if fault is not None and not result.process.interrupted:
            if fault.kind == "overflow":  # the work may go on in a fresh context: not a crash
                return "ROTATE", f"context overflow: {fault.message}"
            if fault.kind == "rate_limit":  # never DONE: the agent was cut off
                return "ERROR", f"rate limit: {fault.message}"
            return "ERROR", f"auth or configuration error: {fault.message}"
        failure = result.failure
        if failure is not None:
            if failure == "interrupted" and self.cancel.now.is_set():
                return "ERROR", "cancelled (ralph cancel --now)"
            return "ERROR", failure
        found = parse_signal(result.output_text, prompt, result.final_text)
        if found is None:
            return "NONE", "no signal in the agent's output; counted as CONTINUE"
        if found in VERDICTS:
            return "NONE", f"{found} only counts in a final verification; counted as CONTINUE"
        return found, None

    def _record_budget(self, iteration: int, budget: LatencyBudget) -> None:
        append_worklog(self.ws.worklog, "budget", iteration=iteration, **budget.to_json())
        if budget.exceeded:
            self.emit(
                Notice(
                    "warning",
                    f"ralph's own work in rotation {iteration} took {budget.used_ms:.0f} ms, "
                    f"over its {budget.total_ms:.0f} ms budget",
                )
            )

    # ------------------------------------------------------------------ breaker and escalation

    def _feed_breaker(self, success: bool, reason: str, subject: str) -> None:
        """Feed one outcome to the circuit breaker (the caller saves the state)."""
        now = time.time()
        breaker, change = breakers.record(
            self.state.breaker,
            success=success,
            now=now,
            threshold=self.opts.breaker_threshold,
            reason=reason,
            subject=subject,
        )
        self.state = replace(self.state, breaker=breaker)
        if change is not None:
            self._breaker_changed(change)
            self.escalate_now = change.after == breakers.OPEN

    def _breaker_changed(self, change: breakers.Transition) -> None:
        append_worklog(
            self.ws.worklog,
            "breaker",
            before=change.before,
            after=change.after,
            reason=change.reason,
            failures=self.state.breaker.failures,
        )
        if change.after == breakers.OPEN:
            reasons = "; ".join(self.state.breaker.reasons[-3:])
            append_error(self.ws.errors_log, f"circuit breaker opened ({change.reason}): {reasons}")
            self.emit(Notice("warning", f"circuit breaker open: {change.reason}"))
        else:
            self.emit(Notice("info", f"circuit breaker {change.before} -> {change.after}"))

    def _admit(self) -> int | None:
        """Before an attempt: an open breaker lets one trial through once its cooldown is
        over; before that, it is a human's call."""
        breaker, allowed, change = breakers.admit(
            self.state.breaker, now=time.time(), cooldown=self.opts.breaker_cooldown
        )
        if change is not None:
            self.state = replace(self.state, breaker=breaker)
            self.save()
            self._breaker_changed(change)
        if allowed:
            return None
        return self._escalate()

    def _escalate_if_open(self) -> int | None:
        if not self.escalate_now:
            return None
        self.escalate_now = False
        return self._escalate()

    def _escalate(self) -> int | None:
        """Ask (or, headless, apply --on-escalation); the exit code when the run ends."""
        b = self.state.breaker
        spec = None if b.subject in (None, fv.SUBJECT) else b.subject
        e = Escalation(
            spec=spec,
            failures=b.failures,
            reasons=b.reasons,
            cooldown_left=breakers.cooldown_left(
                b, now=time.time(), cooldown=self.opts.breaker_cooldown
            ),
        )
        choice = self.opts.decide(e) if self.opts.decide is not None else "abort"
        self.state = apply_choice(self.state, e, choice)
        self.save()
        append_worklog(
            self.ws.worklog,
            "escalation",
            subject=e.key,
            choice=choice,
            failures=e.failures,
            reasons=list(e.reasons),
            outcome={"accept": "user_accepted", "abort": "aborted", "continue": "bypassed"}[choice],
        )
        append_progress(self.ws.progress, f"escalation on {e.subject}: the user chose {choice}")
        if choice == "abort":
            return self.end(
                ExitCode.NEEDS_HUMAN,
                f"aborted after {e.failures} failures in a row on {e.subject} "
                "(circuit breaker open); partial work kept",
            )
        _, change = breakers.reset(b, f"user chose {choice}")
        if change is not None:
            self._breaker_changed(change)
        if choice == "accept":
            self.emit(Notice("warning", f"{e.subject} accepted as verified by the user"))
        else:
            self.emit(Notice("warning", f"going on without verification for {e.subject} (a risk)"))
            append_error(self.ws.errors_log, f"risk: {e.subject} goes on without verification")
        return None

    # ------------------------------------------------------------------ questions

    def _take_answer(self) -> int | None:
        """A pending question: with an answer it goes into the next prompt; without one the
        run stops before starting any agent (it would only be asked again)."""
        question = pending(self.ws)
        if question is None:
            return None
        self.answer = answered(self.ws)
        if self.answer is not None:
            self.emit(Notice("info", "passing your answer (.ralph/answer.md) to the agent"))
            return None
        self.emit(Notice("warning", "question waiting for an answer:\n" + shown(question)))
        return self.end(
            ExitCode.NEEDS_HUMAN,
            "a question is waiting for your answer in .ralph/question.md: write it to "
            ".ralph/answer.md and run again (or delete .ralph/question.md to go on without)",
        )

    def _stop_for_question(self, path: str) -> int:
        output = read_text(self.ws.current_log)
        if write_fallback_question(self.ws, path, output):
            self.emit(
                Notice("warning", "the agent did not write .ralph/question.md; saved its output")
            )
        question = pending(self.ws) or ""
        append_worklog(self.ws.worklog, "question", spec=path)
        self.emit(Notice("warning", f"question from the agent on {path}:\n" + shown(question)))
        return self.end(
            ExitCode.NEEDS_HUMAN,
            f"the agent has a question on {path} (.ralph/question.md): write your answer to "
            ".ralph/answer.md and run ralph again",
        )

    # ------------------------------------------------------------------ final verification

    def _complete(self, specs: list[Spec], before: Snapshot) -> tuple[int | None, Snapshot]:
        """Every spec is at 3/3: verify independently, or end the run."""
        final = self.state.final
        if not self.opts.final_verification:
            return self.end(ExitCode.OK, "every spec verified (3/3)"), before
        if final.passed:
            self.emit(Notice("info", "the final verification passed; nothing changed since"))
            return self.end(ExitCode.OK, "every spec verified (3/3)"), before
        if final.accepted:
            return self._finish(
                "every spec at 3/3; the final verification was accepted by the user (user_accepted)"
            ), before
        if final.bypassed:
            self.emit(Notice("warning", "the final verification was skipped by the user (risk)"))
            return self.end(
                ExitCode.OK, "every spec verified (3/3); final verification skipped (risk)"
            ), before
        if final.failures >= self.opts.max_verification_failures:
            # an earlier run gave up; this run is the user's decision to try again
            self.state = replace(self.state, final=replace(final, failures=0))
        if self.state.iteration >= self.limit:
            # The work is done within the limit; its verification is bounded on its own (by
            # max_verification_failures), so it always gets its rotation.
            self.limit = self.state.iteration + 1
            self.state = replace(self.state, max_iteration=self.limit)
        stop = self._admit()
        if stop is not None:
            return stop, before
        before, verdict, interrupted = self._verify(specs, before)
        if interrupted:
            return self.end(
                ExitCode.INTERRUPTED, "interrupted during the final verification"
            ), before
        if verdict.passed:
            self.emit(Notice("info", "final verification passed"))
            return self._finish("every spec verified (3/3)"), before
        failures = self.state.final.failures
        if failures >= self.opts.max_verification_failures:
            self.emit(
                Notice(
                    "warning",
                    f"the final verification failed {failures} times in a row; "
                    f"the last time: {verdict.summary}",
                )
            )
            return self.end(
                ExitCode.VERIFICATION_FAILED,
                f"final verification failed {failures} times in a row: {verdict.summary}",
            ), before
        stop = self._escalate_if_open()
        return stop, before

    def _own_checks(
        self, specs: list[Spec], iteration: int, log: RotationLog
    ) -> tuple[list[str], bool]:
        """The project's test command and every spec's checks (the DONE gate's runner, on the
        tree as it is now); the failures, and whether Ctrl-C stopped them."""
        opts, failed = self.opts, list[str]()
        if opts.test_command:
            config = ExternalConfig(command=opts.test_command, timeout=opts.test_timeout or 1800.0)
            outcome = run_command(config, opts.root, name="test_command (ralph.yaml)")
            append_worklog(
                self.ws.worklog, "check", iteration=iteration, spec=None, **outcome.to_json()
            )
            log.chunk("stdout", _check_line(outcome.name, config.command, outcome).encode())
            if outcome.interrupted:
                return failed, True
            if not outcome.passed:
                tail = " | ".join(outcome.output.strip().splitlines()[-5:])
                failed.append(
                    f"`{config.command}` ({outcome.name}) failed: {outcome.summary}"
                    + (f"; output ends: {tail}" if tail else "")
                )
        try:
            # no tree key: the final verification never takes a cached result
            found = self.gate.check_all(specs, iteration=iteration, tree=lambda: None)
        except KeyboardInterrupt:
            return failed, True
        for path, gate in found:
            if gate.interrupted:
                return failed, True
            for result in gate.results:
                if not result.skipped:
                    log.chunk("stdout", _check_line(f"{path}: {result.name}", "", result).encode())
            failed.extend(f"{path}: {reason}" for reason in gate.reasons)
        return failed, False

    def _finish(self, reason: str) -> int:
        folder = archive_run(self.ws)
        append_worklog(self.ws.worklog, "archived", folder=self.ws.rel(folder))
        self.emit(Notice("info", f"run archived in {self.ws.rel(folder)}/"))
        return self.end(ExitCode.OK, reason)

    def _verify(self, specs: list[Spec], before: Snapshot) -> tuple[Snapshot, fv.Verdict, bool]:
        ws, opts = self.ws, self.opts
        # fresh eyes: another available agent of the pool than the one that completed
        verifier = self._reviewer()
        member = self.members[verifier.name]
        budget = LatencyBudget(opts.latency_budget_ms)
        iteration = self.state.iteration + 1
        attempt = self.state.final.failures + 1
        first = specs[0].path
        self.state = replace(self.state, iteration=iteration, current_spec=None)
        self.save()
        self.lock.update(current_spec=None, iteration=iteration, mode="VERIFY")
        report = ws.handoff(fv.SLUG)
        commands = fv.announced_commands(specs, self.gate.meta, opts.test_command)
        prompt = build_verification_prompt(
            VerifyInput(
                iteration=iteration,
                max_iteration=self.limit,
                attempt=attempt,
                max_failures=opts.max_verification_failures,
                specs=tuple((s.path, s.text) for s in specs),
                test_commands=commands,
                report_path=ws.rel(report),
                guardrails_path=ws.rel(ws.guardrails),
                guardrails_text=read_text(ws.guardrails),
                last_failure=self.state.final.last_failure,
                recent_errors=recent_errors(ws.errors_log),
            )
        )
        ws.prompt_file.write_text(prompt, encoding="utf-8")
        started = time.time()
        log = RotationLog(
            ws.history_log(fv.SLUG, iteration),
            ws.current_log,
            f"# ralph final verification {attempt} (rotation {iteration}) "
            f"agent={verifier.name} started={stamp(started)}",
        )
        self.emit(
            RotationStarted(
                verifier.name,
                "(all specs)",
                "VERIFY",
                iteration,
                self.limit,
                started,
                self.rows(),
            )
        )
        append_worklog(
            ws.worklog,
            "verification",
            transition="started",
            attempt=attempt,
            iteration=iteration,
            agent=verifier.name,
        )
        request = AgentRequest(
            prompt=prompt,
            prompt_file=ws.prompt_file,
            root=opts.root,
            spec=first,
            mode="VERIFY",
            iteration=iteration,
            state_dir=ws.dir.resolve(),
            handoff_file=report.resolve(),
            timeout=member.timeout,
            idle_timeout=member.idle_timeout,
            kill_grace=member.kill_grace,
            specs=tuple(s.path for s in specs),
        )
        result = self._run_agent(request, log, verifier)
        # its tokens and cost count like any rotation's (run totals, per agent; no spec)
        self.state = record_usage(self.state, fv.SUBJECT, verifier.name, result.usage)
        failure = result.failure
        tag = None if failure else parse_signal(result.output_text, prompt, result.final_text)
        append_worklog(
            ws.worklog,
            "verification",
            transition="answered",
            attempt=attempt,
            iteration=iteration,
            tag=tag,
            failure=failure,
        )
        # ralph runs the tests itself: the verifier's word alone never verifies anything
        interrupted = result.process.interrupted
        failed_checks: list[str] = []
        if not interrupted:
            failed_checks, interrupted = self._own_checks(specs, iteration, log)
        with _deferred_interrupts():
            failed_snapshot: StateError | None = None
            with budget.operation("snapshot"):
                try:
                    after = self.snapshotter.take()
                    changes = self.snapshotter.diff(before, after)
                except StateError as exc:
                    failed_snapshot, after = exc, before
                    changes = Changes((f"(snapshot failed: {exc.message})",))
                hidden = hidden_spec_hashes(opts.root)
                changes = _with_hidden_spec_changes(changes, self.hidden, hidden)
            with budget.operation("bookkeeping"):
                verdict = fv.judge(
                    tag, "interrupted" if interrupted else failure, changes.paths, failed_checks
                )
                dropped: tuple[str, ...] = ()
                if interrupted:  # the user stopped it: no verdict either way
                    pass
                elif verdict.passed:
                    self.state = fv.after_pass(self.state)
                else:
                    self.state, dropped = fv.after_failure(self.state, verdict)
                if not interrupted:
                    self._feed_breaker(
                        verdict.passed,
                        f"final verification {attempt}: {verdict.summary}",
                        fv.SUBJECT,
                    )
            with budget.operation("state_save"):
                self.save()
            if failed_snapshot is not None:
                log.close(f"# ralph could not take a snapshot: {failed_snapshot.message}")
                raise failed_snapshot
            self._save_snapshot(after, hidden)
            self.lock.update(agent_pid=None)
            elapsed = time.time() - started
            with budget.operation("logs"):
                log.close(
                    f"# ended: verdict={'PASS' if verdict.passed else 'FAIL'} "
                    f"files_changed={len(changes)} elapsed={elapsed:.1f}s"
                )
                status = "VERIFY_PASS" if verdict.passed else "VERIFY_FAIL"
                append_progress(
                    ws.progress,
                    f"final verification {attempt} (rotation {iteration}): "
                    + ("PASS" if verdict.passed else f"FAIL: {verdict.summary}"),
                )
                if not verdict.passed:
                    append_error(
                        ws.errors_log,
                        f"final verification {attempt} (rotation {iteration}) failed: "
                        f"{verdict.summary} (log {ws.rel(log.path)})",
                    )
                    note = (
                        f"final verification {attempt} (rotation {iteration}) failed: "
                        f"{verdict.summary}. The verifier's report: {ws.rel(report)}; "
                        f"its log: {ws.rel(log.path)}. Check this spec against it."
                    )
                    for spec in specs:
                        append_note(ws.handoff(spec_slug(spec.path)), note)
                append_worklog(
                    ws.worklog,
                    "verification",
                    transition="passed" if verdict.passed else "failed",
                    attempt=attempt,
                    iteration=iteration,
                    reasons=list(verdict.reasons),
                    files_changed=len(changes),
                    downgraded=list(dropped),
                    failures=self.state.final.failures,
                )
            self._record_budget(iteration, budget)
            self.emit(
                RotationEnded(
                    verifier.name,
                    "(all specs)",
                    "VERIFY",
                    iteration,
                    self.limit,
                    status,
                    len(changes),
                    3 if verdict.passed else 2,
                    elapsed,
                    None if verdict.passed else verdict.summary,
                    dropped,
                    self.rows(),
                )
            )
        return after, verdict, interrupted


def _check_line(name: str, command: str, result: CheckResult) -> str:
    """One check ralph ran in a final verification, for its history log."""
    what = f" `{command}`" if command else ""
    verdict = "passed" if result.passed else "FAILED"
    output = f"{result.output}\n" if not result.passed and result.output else ""
    return f"\n# ralph ran {name}{what}: {verdict} ({result.summary})\n{output}"


def hidden_spec_hashes(root: Path) -> dict[str, str]:
    """Spec files under `.ralph/specs/`: tracked files that no snapshot includes."""
    hashes: dict[str, str] = {}
    for path in find_spec_paths(root):
        if path.startswith(".ralph/"):
            digest = spec_file_hash(root, path)
            hashes[path] = digest if digest is not None else "(unreadable)"
    return hashes


def _with_hidden_spec_changes(
    changes: Changes, before: dict[str, str], after: dict[str, str]
) -> Changes:
    """Add the spec files under `.ralph/specs/` that were edited, added or deleted."""
    moved = {p for p in before.keys() | after.keys() if before.get(p) != after.get(p)}
    if not moved:
        return changes
    return Changes(tuple(sorted(set(changes.paths) | moved)))


# Signals that end a run the way Ctrl-C does: a CI job cancelled (SIGTERM), an ssh session
# or terminal gone (SIGHUP). The agent runs in its own session and never receives them.
_STOP_SIGNALS = tuple(
    sig for sig in (getattr(signal, "SIGTERM", None), getattr(signal, "SIGHUP", None)) if sig
)


@contextmanager
def _handled(
    signals: tuple[int, ...], handler: Callable[[int, FrameType | None], None]
) -> Iterator[None]:
    if threading.current_thread() is not threading.main_thread():
        yield  # signal handlers can only be set from the main thread
        return
    previous = {sig: signal.signal(sig, handler) for sig in signals}
    try:
        yield
    finally:
        for sig, old in previous.items():
            signal.signal(sig, old)


def _raise_interrupt(signum: int, frame: FrameType | None) -> None:
    raise KeyboardInterrupt


def _stop_signals_as_interrupt() -> contextlib.AbstractContextManager[None]:
    """SIGTERM and SIGHUP stop a run the way Ctrl-C does: the agent is stopped, state saved."""
    return _handled(_STOP_SIGNALS, _raise_interrupt)


@contextmanager
def _deferred_interrupts() -> Iterator[None]:
    """Hold Ctrl-C, SIGTERM and SIGHUP while a rotation is recorded, then act on them.

    Re-entrant: inside an outer block an inner one changes nothing, so the interrupt is acted
    on only once the outermost block is done."""
    global _DEFERRING  # noqa: PLW0603 -- signal handling is process-wide
    if _DEFERRING:
        yield
        return
    pending: list[int] = []
    _DEFERRING = True
    try:
        with _handled(
            (signal.SIGINT, *_STOP_SIGNALS), lambda signum, frame: pending.append(signum)
        ):
            yield
    finally:
        _DEFERRING = False
    if pending:
        raise KeyboardInterrupt


_DEFERRING = False


def _account(state: State, spec: str, agent: str, result: AgentResult, changed: bool) -> State:
    """Count the rotation's usage, and remember who last changed the spec's files (the next
    REVIEW prefers someone else: fresh eyes)."""
    state = record_usage(state, spec, agent, result.usage)
    row = state.get(spec)
    if changed and row is not None:
        state = state.with_spec(replace(row, last_changed_by=agent))
    return state


def _rotation_tally(result: AgentResult) -> Tally | None:
    usage = result.usage
    if usage is None:
        return None
    return Tally(
        rotations=1,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=usage.cost_usd or 0.0,
        unpriced=int(usage.cost_usd is None),
    )


def _usage_fields(result: AgentResult) -> dict[str, object]:
    """The worklog's usage keys of a rotation: null where the agent reported nothing."""
    usage = result.usage
    return {
        "input_tokens": usage.input_tokens if usage else None,
        "output_tokens": usage.output_tokens if usage else None,
        "cost_usd": usage.cost_usd if usage else None,
        "fault": result.fault.kind if result.fault else None,
    }


def _handoff_note(
    signal_: str, note: str | None, fault: AgentFault | None, iteration: int, log: str
) -> str | None:
    """What the next rotation of the spec must know about this one, when it did not end well."""
    if fault is not None and fault.kind == "overflow":
        return (
            f"rotation {iteration} ran out of context ({fault.message}); its changes are kept. "
            "Start from this handoff, read only what the next step needs, and keep steps small."
        )
    if fault is not None and fault.kind == "rate_limit":
        return (
            f"rotation {iteration} was cut off by the agent's usage limit ({fault.message}); "
            f"its changes are kept. Check its log {log} and carry on from where it stopped."
        )
    if note is not None and signal_ == "ERROR":
        return f"rotation {iteration} failed ({note}); check its log {log} and carry on."
    return None
