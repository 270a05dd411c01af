"""`ralph run --parallel N`: up to N specs at once, each in a lane (its own git worktree and
branch), merged into the user's branch one at a time, verified once more on the merged tree.

One thread per running lane: the agent is an external process, so a thread mostly waits on
it. The coordinator (the main thread) alone chooses agents, merges, and writes the run's
state: a lane's rotation reads the state its turn was given and returns its outcome, which
the coordinator folds (run/fold.py); its events reach the displays through the run's sink.
"""

from __future__ import annotations

import threading
import time
from concurrent.futures import FIRST_COMPLETED, ThreadPoolExecutor, wait

from ralph.errors import ExitCode
from ralph.rules.agents.pool import Exhausted, Wait
from ralph.rules.counts.lanebreakers import lane_breaker
from ralph.rules.counts.lanes import candidates, hold, shares
from ralph.rules.counts.schedule import selected_done
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import MAX_COUNT, State
from ralph.rules.counts.stops import cancelled, cut_short
from ralph.run.context import Shared
from ralph.run.events import Notice
from ralph.run.interrupts import deferred_interrupts
from ralph.run.lanespecs import LaneSpecs
from ralph.run.lanework import (
    LaneDone,
    LaneNews,
    LaneParts,
    LaneTurn,
    Running,
    meanwhile,
    rotate,
)
from ralph.run.loop import SpecRun, selected_reason
from ralph.run.merging import Integration
from ralph.run.question import ask
from ralph.run.tree import hidden_spec_hashes
from ralph.store.repository.worktrees import commit_all

TICK = 0.2  # seconds between the coordinator's looks at cancel requests while lanes run
GONE = "no spec can go on: its lane waits on a spec no longer in the matrix"


class LaneRun(SpecRun):
    lanes = True  # the words of the run's stops (rules/counts/stops.py): several rotations at once

    def __init__(self, run: Shared, state: State) -> None:
        super().__init__(run, state)
        self.integration = Integration(run, self.statefile)
        self.lane_specs = LaneSpecs(self.integration.repo, run.opts.root)  # read from lanes
        self.running: dict[str, Running] = {}
        self.parts: dict[str, LaneParts] = {}  # each lane's, from its first rotation
        self.news = LaneNews(run)  # run.json's `lanes`
        self.sharing: set[str] = set()  # lanes whose work reaches the user's branch early
        # how the run ends, once the running rotations have (their outcomes counted first)
        self.stopping: tuple[ExitCode, str] | None = None

    # ------------------------------------------------------------------ the run

    def run(self) -> int:
        self.state = self.integration.prepare(self.state)
        code = self.start()
        if code is not None:
            return code
        parallel = self.shared.opts.settings.parallel
        executor = ThreadPoolExecutor(max_workers=parallel, thread_name_prefix="lane")
        try:
            return self._loop(executor)
        except BaseException:
            self._stop_all()
            raise
        finally:
            executor.shutdown(wait=True)

    def discover(self, templates: list[str] | None = None) -> list[Spec]:
        return self.lane_specs.as_worked_on(self.integration.lanes, super().discover(templates))

    def start(self) -> int | None:
        """The run's start, as in one-spec mode (the matrix, changes since the last run)."""
        self.begin()
        return self._take_answer()

    def _loop(self, executor: ThreadPoolExecutor) -> int:
        opts = self.shared.opts
        while True:
            try:
                collected = self._collect()
            except KeyboardInterrupt:
                self._interrupted()
                continue
            busy = len(self.running) >= opts.settings.parallel
            if not collected and self.stopping is None and busy:
                # Every lane busy and none ended: nothing to merge or start until one ends,
                # and the specs are scanned again then, as between rotations in one-spec mode.
                self.stopping = self._stop_reason()
                if self.stopping is None:
                    self._wait()
                    continue
            try:
                specs, _ = self.rescan()
            except KeyboardInterrupt:  # as while collecting: the lanes stop, the run ends
                self._interrupted()
                continue
            if self.stopping is None:
                self.stopping = self._stop_reason()
            if self.stopping is not None:
                if not self.running:
                    return self._end(*self.stopping)
                self._wait()
                continue
            self._merge_ready()
            if not self.running and not self.integration.lanes.lanes:
                if self.state.complete and not self._settled():
                    continue  # a lane's work is not in the user's branch: reviewed again
                if self.state.complete:
                    before = self.tree.take()
                    self.tree.save(before, self.tree.hidden)
                    with meanwhile(self.integration.close_merged):  # while the verifier works
                        self.state, code, _ = self.verification.complete(
                            self.state, self.pool, specs, before
                        )
                    if code is not None:
                        if code == ExitCode.OK:
                            self.integration.finish()
                        return code
                    # what the verifier changed must reach the lanes, which start from commits
                    commit_all(
                        self.integration.repo,
                        "ralph: left by a final verification",
                        leave=opts.own_files,
                    )
                    continue
                only = opts.settings.spec
                if only and selected_done(self.state, only) and self._settled():
                    self.integration.finish()
                    return self.end(ExitCode.OK, selected_reason(self.state, only))
            code = self._launch(specs, executor)
            if code is not None:
                return code
            if not self.running:
                if self.integration.ready(self.state, set()):
                    continue  # a lane reached 3/3 meanwhile: merge it
                if self._paused(specs):
                    continue  # a person let a paused lane go on, or the run ends (stopping)
                blocked = any(s.blocked for s in self.state.specs)
                return self._end(
                    ExitCode.MAX_ITERATIONS, self._blocked_reason() if blocked else GONE
                )
            self._wait()

    def _settled(self) -> bool:
        """Every spec at 3/3 has its lane's work in the user's branch, and the project's tree
        is that branch's (Integration.settle): only then may the run count them verified."""
        state = self.integration.settle(self.state)
        if state == self.state:
            return True
        self.state = state
        self.tree.save(self.tree.take(), hidden_spec_hashes(self.shared.opts.root))
        return False

    def _paused(self, specs: list[Spec]) -> bool:
        """No lane runs and none could start: a lane its own breaker paused is a person's
        call. True when one was (their choice let it go on, or the run ends: `stopping`)."""
        rows = [r for s in self._unblocked(specs) if (r := self.state.get(s.path))]
        asked = self.circuit.ask_paused(self.state, [r.path for r in rows if r.needs_work])
        if asked is None:
            return False
        self.state, stop = asked
        if stop is not None:
            self.stopping = (ExitCode[stop.code], stop.reason)
        return True

    def _stop_reason(self) -> tuple[ExitCode, str] | None:
        run = self.shared
        if run.cancel.requested:
            now = run.cancel.now.is_set()
            if now:
                self._stop_all()
            stop = cut_short(now=True, lanes=True) if now else cancelled(lanes=True)
            return ExitCode[stop.code], stop.reason
        reason = run.out_of_budget(self.state)
        return (ExitCode.MAX_ITERATIONS, reason) if reason is not None else None

    def _end(self, code: ExitCode, reason: str) -> int:
        self.state = self.integration.unverified(self.state)  # 3/3 only with its work merged
        self.integration.retire()
        for where in self.integration.where():
            self.shared.emit(Notice("warning", f"lane kept (its spec not verified): {where}"))
        return self.end(code, reason)

    def _wait(self) -> None:
        try:
            wait(
                [r.future for r in self.running.values()], timeout=TICK, return_when=FIRST_COMPLETED
            )
        except KeyboardInterrupt:
            self._interrupted()
        if self.shared.cancel.now.is_set():
            self._stop_all()

    def _interrupted(self) -> None:
        """Ctrl-C: the lanes stop, their rotations recorded as ERROR, and the run ends."""
        stop = cut_short(now=False, lanes=True)
        self.stopping = ExitCode[stop.code], stop.reason
        self._stop_all()

    def _stop_all(self) -> None:
        for r in self.running.values():
            r.stop.set()

    # ------------------------------------------------------------------ lanes

    def _candidates(self, specs: list[Spec]) -> list[Spec]:
        """Specs that need work, have no rotation running and no lane paused, best first."""
        runnable = [s for s in self._unblocked(specs) if s.path not in self.running]
        needing = [s.path for s in runnable if (row := self.state.get(s.path)) and row.needs_work]
        paused = set(self.circuit.paused(self.state, needing))
        open_ = {lane.spec for lane in self.integration.lanes.lanes}
        return candidates(self.state, runnable, open_, paused)

    def _launch(self, specs: list[Spec], executor: ThreadPoolExecutor) -> int | None:
        run = self.shared
        for spec in self._candidates(specs):
            if len(self.running) >= run.opts.settings.parallel or run.exhausted(self.state):
                return None
            self.pool, choice = self.seats.choose(self.pool, self.state, spec)
            if isinstance(choice, Wait):
                if self.running:
                    return None  # the others go on; this spec waits for an agent
                stopped = self.seats.wait(self.state, choice)
                if stopped is not None:
                    return stopped
                return None
            if isinstance(choice, Exhausted):
                if self.running:
                    return None
                self.seats.exhausted(self.state, choice)  # raises
            self.state, stop = self.circuit.admit(self.state)  # the run's (a verification's)
            if stop is None:  # its lane's own: once its cooldown is over, one trial
                self.state, stop = self.circuit.admit(self.state, spec.path)
            if stop is not None:  # the run ends once the running lanes have
                self.stopping = (ExitCode[stop.code], stop.reason)
                return None
            self.use(choice)
            self._start_rotation(spec, executor)
        return None

    def _start_rotation(self, spec: Spec, executor: ThreadPoolExecutor) -> None:
        """The coordinator numbers the rotation and hands the lane's thread its turn, a frozen
        value: the thread returns what it did, and `_collect` folds it."""
        lane, opening, made = self.integration.open(spec.path)
        if opening is None:  # a new lane starts from the user's branch: nothing to bring in
            self.state = self.integration.update(self.state, lane)
            lane = self.integration.lanes.get(spec.path) or lane
        if made:  # a new worktree: its parts are made again, in its thread
            self.parts.pop(lane.name, None)
        stop = threading.Event()
        turn = self.turn(spec, time.perf_counter(), stop)
        worktree = self.integration.worktree(lane)
        work = LaneTurn(
            lane.name, worktree, turn, self.news.note, self.parts.get(lane.name), opening
        )
        future = executor.submit(rotate, self.shared, work)
        self.running[spec.path] = Running(lane, spec, stop, future)

    def _fold(self, r: Running, done: LaneDone) -> None:
        """A lane's rotation joins the run's state, in the coordinator, as one spec's would."""
        self.parts[r.lane.name] = done.parts
        with deferred_interrupts():
            self.commit(done.parts.rotation, done.attempt, done.outcome)

    def _collect(self) -> bool:
        """Rotations that ended: the pool, the circuit breaker and the lane's verdict; True
        when one had."""
        run, collected = self.shared, False
        for path, r in list(self.running.items()):
            if not r.future.done():
                continue
            del self.running[path]
            collected = True
            done = r.future.result()  # a lane's error is the run's error
            outcome = done.outcome
            breaker = lane_breaker(self.state, path)  # before its outcome: did it open?
            self._fold(r, done)
            self.news.forget(r.lane.name)  # after its report: `ralph inspect` stops listing it
            stop = self.heard(outcome, breaker)  # as in one-spec mode, which ends at once
            if stop is not None:  # the run ends once the running rotations have
                if outcome.interrupted:
                    self._stop_all()
                elif stop.question:
                    # while lanes run, the displays wait and show it again last: never buried
                    notice = ask(run, path, done.parts.rotation.place.current_log)
                    if self.running:
                        run.sink.hold(again=notice)
                if not (outcome.interrupted and self.stopping):  # a stop under way stays
                    self.stopping = (ExitCode[stop.code], stop.reason)
                continue
            # a lane its breaker opened pauses (heard said so); a stuck spec is a person's call
            self.state, stop = self.convergence.escalate_if_stuck(self.state, path)
            if stop is not None:
                self.stopping = (ExitCode[stop.code], stop.reason)
                continue
            if self.integration.unresolved(path):
                if self.state != (held := hold(self.state, path)):
                    self.state = held
                    branch = self.integration.branch
                    run.emit(
                        Notice("warning", f"{path}: no DONE counts until its lane merges {branch}")
                    )
                continue
            row = self.state.get(path)
            if row is not None and row.done_count == MAX_COUNT:
                self.integration.verified(path)
            elif row is not None and shares(outcome.signal, row.done_count):
                self.sharing.add(path)
        return collected

    def _merge_ready(self) -> None:
        """Every lane waiting at 3/3, and every lane whose DONE counted 1/3 (rules/lanes.
        shares), goes through the queue, one merge at a time."""
        lanes = self.integration.lanes
        waiting = [lanes.get(p) for p in sorted(self.sharing - set(self.running))]
        sharing = [lane for lane in waiting if lane is not None and not lane.conflict]
        self.sharing &= set(self.running)
        ready = self.integration.ready(self.state, set(self.running))
        # Specs with a lane still open are judged by their own merge, by the same rule.
        queued = {lane.spec for lane in lanes.lanes}
        for lane in sharing:
            self.state = self.integration.merge(self.state, lane, queued, closes=False)
        for lane in ready:
            self.state = self.integration.merge(self.state, lane, queued)
            queued.discard(lane.spec)
        if ready or sharing:  # ralph's own merges are not changes made while it was away
            self.tree.save(self.tree.take(), hidden_spec_hashes(self.shared.opts.root))
