"""`ralph run`: wires the pure core (schedule, matrix, signals, prompt) to the edges."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from types import FrameType

from ralph.agent import AgentRequest, AgentResult, CommandAgent, Stream
from ralph.errors import ExitCode, StateError
from ralph.events import (
    AgentOutput,
    Event,
    Mode,
    Notice,
    RotationEnded,
    RotationStarted,
    RunEnded,
    RunStarted,
    SpecRow,
)
from ralph.matrix import Rescan, downgrade_verified, reconcile, record_rotation
from ralph.prompt import PromptInput, build_prompt
from ralph.runlock import RunLock
from ralph.schedule import next_spec
from ralph.signals import parse_signal
from ralph.snapshot import Changes, Snapshot, Snapshotter
from ralph.specs import Spec, discover_specs, find_spec_paths, read_spec, spec_slug
from ralph.state import State, load_json, load_state, save_state, write_json_atomic
from ralph.workspace import (
    RotationLog,
    Workspace,
    append_note,
    append_worklog,
    read_text,
    stamp,
)

Emit = Callable[[Event], None]
STOPPING = {"STUCK": "the agent is stuck", "QUESTION": "the agent has a question"}


@dataclass(frozen=True)
class RunOptions:
    root: Path
    agent: CommandAgent
    max_iterations: int
    timeout: float | None = None
    idle_timeout: float | None = None
    kill_grace: float = 5.0


def matrix_rows(state: State) -> tuple[SpecRow, ...]:
    return tuple(
        SpecRow(s.path, s.done_count, s.last_status, s.modified_files) for s in state.specs
    )


def run_loop(opts: RunOptions, emit: Emit) -> int:
    """Run rotations until every spec is verified or a stop condition; returns the exit code."""
    ws = Workspace(opts.root)
    ws.check()
    with RunLock(ws.dir, agent=opts.agent.name) as lock, _sigterm_as_interrupt():
        ws.ensure()
        return _Run(opts, ws, emit, lock).run()


class _Run:
    def __init__(self, opts: RunOptions, ws: Workspace, emit: Emit, lock: RunLock) -> None:
        self.lock = lock
        self.opts = opts
        self.ws = ws
        self.emit = emit
        self.agent = opts.agent
        self.state = load_state(ws.state_file)  # refuses a damaged file before anything runs
        self.snapshotter = Snapshotter(opts.root)
        self.limit = self.state.iteration + opts.max_iterations  # this run stops there

    def save(self) -> None:
        save_state(self.ws.state_file, self.state)

    def end(self, code: ExitCode, reason: str) -> int:
        self.emit(RunEnded(int(code), reason, self.state.iteration, self.limit, self.rows()))
        append_worklog(self.ws.worklog, "run_end", exit_code=int(code), reason=reason)
        return int(code)

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
        dropped = self._compare_with_last_run(before)
        self.state = replace(self.state, max_iteration=self.limit)
        self.save()
        self._save_snapshot(before)
        append_worklog(
            ws.worklog, "run_start", agent=self.agent.name, iteration=self.state.iteration
        )
        self.emit(RunStarted(self.agent.name, self.state.iteration, self.limit, self.rows()))
        self.report(scan, added=had_specs)
        if dropped:
            self.emit(
                Notice(
                    "warning",
                    f"files changed since the last run: {', '.join(dropped)} 3/3 -> 2/3",
                )
            )

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
                return self.end(ExitCode.OK, "every spec verified (3/3)")
            if self.state.iteration >= self.limit:
                return self.end(
                    ExitCode.MAX_ITERATIONS,
                    f"max iterations reached ({self.opts.max_iterations} rotations this run)",
                )
            path = next_spec(specs, self.state, current, switch=switch, new=new)
            assert path is not None  # not complete, so some spec needs work
            spec = next(s for s in specs if s.path == path)
            outcome = self._rotation(spec, specs, before, tick)
            before, signal_, changed, interrupted = outcome
            if interrupted:
                return self.end(
                    ExitCode.INTERRUPTED, "interrupted; the rotation was recorded as ERROR"
                )
            if signal_ in STOPPING:
                return self.end(ExitCode.NEEDS_HUMAN, f"{STOPPING[signal_]} on {path}")
            current = path
            switch = signal_ == "DONE" and not changed

    def _compare_with_last_run(self, now: Snapshot) -> tuple[str, ...]:
        """Files changed while ralph was not running: verified specs need one more review."""
        if not self.ws.snapshot_file.exists():
            return ()  # the first run: nothing to compare with
        try:
            data = load_json(self.ws.snapshot_file, ".ralph/snapshot.json")
            last: Snapshot | None = Snapshot.from_json(data)
        except StateError:  # an unreadable snapshot proves nothing: assume the tree changed
            last = None
        if last is not None and not self.snapshotter.diff(last, now):
            return ()
        self.state, dropped = downgrade_verified(self.state)
        return dropped

    def _save_snapshot(self, snap: Snapshot) -> None:
        write_json_atomic(self.ws.snapshot_file, snap.to_json())

    def _rotation(
        self, spec: Spec, specs: Sequence[Spec], before: Snapshot, tick: float
    ) -> tuple[Snapshot, str, bool, bool]:
        ws, opts = self.ws, self.opts
        row = self.state.get(spec.path)
        assert row is not None
        mode: Mode = "IMPLEMENT" if row.done_count == 0 else "REVIEW"
        iteration = self.state.iteration + 1
        self.state = replace(self.state, iteration=iteration, current_spec=spec.path)
        self.save()  # the rotation number is taken even if ralph dies during it
        self.lock.update(current_spec=spec.path, iteration=iteration, mode=mode)
        slug = spec_slug(spec.path)
        handoff = ws.handoff(slug)
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
            timeout=opts.timeout,
            idle_timeout=opts.idle_timeout,
            kill_grace=opts.kill_grace,
        )

        def on_line(stream: Stream, line: str) -> None:
            self.emit(AgentOutput(stream, line))

        try:
            result = self.agent.run(request, on_line, log.chunk, self.lock.record_agent)
        except BaseException:
            log.close("# the agent could not be started")
            raise
        with _deferred_interrupts():
            tick = time.perf_counter()
            self.lock.update(agent_pid=None)  # the agent's whole tree is gone by now
            after = self.snapshotter.take()
            changes = self.snapshotter.diff(before, after)
            changes = _with_hidden_spec_changes(changes, specs, self.opts.root)
            signal_, note = self._judge(result, prompt)
            fresh = read_spec(opts.root, spec.path)
            self.state, downgraded = record_rotation(
                self.state,
                spec.path,
                signal_,
                bool(changes),
                fresh.content_hash if fresh else None,
            )
            self.save()
            self._save_snapshot(after)
            if note is not None and signal_ == "ERROR":
                append_note(
                    handoff,
                    f"rotation {iteration} failed ({note}); check its log "
                    f"{ws.rel(ws.history_log(slug, iteration))} and carry on.",
                )
            elapsed = time.time() - started
            log.close(
                f"# ended: signal={signal_} files_changed={len(changes)} "
                f"elapsed={elapsed:.1f}s" + (f" note={note}" if note else "")
            )
            now = self.state.get(spec.path)
            done_count = now.done_count if now else 0
            own += time.perf_counter() - tick
            append_worklog(
                ws.worklog,
                "rotation_end",
                iteration=iteration,
                spec=spec.path,
                signal=signal_,
                files_changed=len(changes),
                changed=list(changes.paths[:50]),
                done_count=done_count,
                downgraded=list(downgraded),
                agent_s=round(result.process.elapsed, 3),
                overhead_ms=round(own * 1000, 2),
                note=note,
            )
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
                )
            )
        return after, signal_, bool(changes), result.process.interrupted

    def _judge(self, result: AgentResult, prompt: str) -> tuple[str, str | None]:
        failure = result.failure
        if failure is not None:
            return "ERROR", failure
        found = parse_signal(result.output_text, prompt, result.final_text)
        if found is None:
            return "NONE", "no signal in the agent's output; counted as CONTINUE"
        return found, None


def _with_hidden_spec_changes(changes: Changes, before: Sequence[Spec], root: Path) -> Changes:
    """Spec files are tracked files, also under `.ralph/specs/`, which no snapshot includes.

    An agent that ticks boxes in (or adds, or deletes) such a spec has changed files.
    """
    hidden_before = {s.path: s.content_hash for s in before if s.path.startswith(".ralph/")}
    hidden_after = {}
    for path in find_spec_paths(root):
        if path.startswith(".ralph/"):
            spec = read_spec(root, path)
            if spec is not None:
                hidden_after[path] = spec.content_hash
    moved = {
        path
        for path in hidden_before.keys() | hidden_after.keys()
        if hidden_before.get(path) != hidden_after.get(path)
    }
    if not moved:
        return changes
    return Changes(tuple(sorted(set(changes.paths) | moved)))


@contextmanager
def _sigterm_as_interrupt() -> Iterator[None]:
    """SIGTERM (a CI job being cancelled) stops a run the way Ctrl-C does."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(signum: int, frame: FrameType | None) -> None:
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, previous)


@contextmanager
def _deferred_interrupts() -> Iterator[None]:
    """Hold Ctrl-C / SIGTERM while a rotation is recorded, then act on it."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    pending: list[int] = []

    def handler(signum: int, frame: FrameType | None) -> None:
        pending.append(signum)

    old_int = signal.signal(signal.SIGINT, handler)
    old_term = signal.signal(signal.SIGTERM, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old_int)
        signal.signal(signal.SIGTERM, old_term)
    if pending:
        raise KeyboardInterrupt
