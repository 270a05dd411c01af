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
from ralph.rules.lanes import hold, shares
from ralph.rules.pool import Exhausted, Wait
from ralph.rules.schedule import priority, selected_done
from ralph.rules.spec import Spec
from ralph.rules.state import MAX_COUNT, State
from ralph.rules.stops import cancelled, cut_short
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
from ralph.store.worktrees import commit_all

TICK = 0.2  # seconds between the coordinator's looks at cancel requests while lanes run


class LaneRun(SpecRun):
    lanes = True  # the words of the run's stops (rules/stops.py): several rotations at once

    def __init__(self, run: Shared, state: State) -> None:
        super().__init__(run, state)
        self.integration = Integration(run, self.statefile)
        self.lane_specs = LaneSpecs(self.integration.repo, run.opts.root)  # read from lanes
        self.running: dict[str, Running] = {}
        self.parts: dict[str, LaneParts] = {}  # each lane's, from its first rotation
        self.news = LaneNews(run)  # run.json's `lanes`
        self.sharing: set[str] = set()  # lanes whose work reaches the user's branch early
        self.stopping: tuple[ExitCode, str] | None = None
        self.ended: int | None = None  # the exit code of a run whose end is already recorded

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
            if self.ended is not None:  # the run's end is recorded: the running lanes finish
                if not self.running:
                    return self.ended
                self._wait()
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
                    self.save()
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
                return self._end(ExitCode.MAX_ITERATIONS, self._stuck_reason())
            self._wait()

    def _settled(self) -> bool:
        """Every spec at 3/3 has its lane's work in the user's branch, and the project's tree
        is that branch's (Integration.settle): only then may the run count them verified."""
        state = self.integration.settle(self.state)
        if state == self.state:
            return True
        self.state = state
        self.save()
        self.tree.save(self.tree.take(), hidden_spec_hashes(self.shared.opts.root))
        return False

    def _stuck_reason(self) -> str:
        if any(s.blocked for s in self.state.specs):
            return self._blocked_reason()
        return "no spec can go on: its lane waits on a spec no longer in the matrix"

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
        state = self.integration.unverified(self.state)  # 3/3 only with its work merged
        if state != self.state:
            self.state = state
            self.save()
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
        """Specs that need work and have no rotation running, best first."""
        runnable = [s for s in self._unblocked(specs) if s.path not in self.running]
        rows = {r.path: r for r in self.state.specs}
        waiting = [s for s in runnable if (row := rows.get(s.path)) and row.done_count < MAX_COUNT]
        open_ = {lane.spec for lane in self.integration.lanes.lanes}
        if open_:
            # A merged spec that a later merge dropped to 2/3 is reviewed once the lanes with
            # work still to merge are in: each of their merges would drop it again.
            waiting = [
                s for s in waiting if s.path in open_ or rows[s.path].done_count < MAX_COUNT - 1
            ]
        return sorted(waiting, key=lambda s: priority(rows[s.path], s.content_hash))

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
            self.state, stop = self.circuit.admit(self.state)
            self.save()
            if stop is not None:  # ended and recorded; the running lanes finish their rotation
                self.ended = stop
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
            breaker = self.state.breaker  # before its outcome: did it open the breaker?
            self._fold(r, done)
            self.news.forget(r.lane.name)  # after its report: `ralph inspect` stops listing it
            stop = self.heard(outcome, breaker)  # as in one-spec mode, which ends at once
            if stop is not None:  # the run ends once the running rotations have
                if outcome.interrupted:
                    self._stop_all()
                elif stop.question:
                    self._asked(path, done)
                if not (outcome.interrupted and self.stopping):  # a stop under way stays
                    self.stopping = (ExitCode[stop.code], stop.reason)
                continue
            stop_code = self.escalate_if_needed(path, breaker)
            if stop_code is not None:  # the escalation ended the run (and recorded it)
                self.ended = stop_code
                continue
            if self.integration.unresolved(path):
                if self.state != (held := hold(self.state, path)):
                    self.state = held
                    self.save()
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

    def _asked(self, path: str, done: LaneDone) -> None:
        """A lane's agent asked: its question is kept and shown; until the running rotations
        end, the displays wait, and the question is shown again last, so no other lane's line
        buries it."""
        notice = ask(self.shared, path, done.parts.rotation.place.current_log)
        if self.running:
            self.shared.sink.hold(again=notice)

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
