"""What the lanes' threads share with the coordinator: the one lock under which a lane's
rotation joins the run's state, reaches the displays and the recorder, and notes its news in
run.json; and the rotation a lane's thread runs in its worktree."""

from __future__ import annotations

import threading
import time
from concurrent.futures import Future
from dataclasses import dataclass, field, replace
from typing import Any

from ralph.agents.command import CommandAgent
from ralph.checks.gate import DoneGate
from ralph.rules.lanes import absorb
from ralph.rules.spec import Spec
from ralph.run.context import RunContext
from ralph.run.events import AgentOutput, Event, RotationEnded, RotationStarted
from ralph.run.facts import Fact, RotationRecorded
from ralph.run.lanectx import LaneCircuit, LaneContext
from ralph.run.rotation import Outcome, Rotation
from ralph.run.tree import Tree
from ralph.store.lanes import Lane
from ralph.store.worktrees import commit_all, repo


@dataclass
class Running:
    """A lane with a rotation under way (or just ended)."""

    lane: Lane
    ctx: LaneContext
    spec: Spec
    agent: CommandAgent
    future: Future[Outcome] = field(default_factory=Future)
    circuit: LaneCircuit | None = None  # what the rotation fed the circuit breaker


class LaneHub:
    def __init__(self, ctx: RunContext) -> None:
        self.ctx = ctx
        self.guard = threading.RLock()  # the run's state, files and displays: one writer
        self.lane_news: dict[str, dict[str, Any]] = {}  # run.json's `lanes`

    def absorb(self, lane: LaneContext) -> None:
        with self.guard:
            row = lane.state.get(lane.spec_path)
            if row is not None:
                self.ctx.state = absorb(self.ctx.state, lane.base, lane.state, lane.spec_path)
                lane.base = lane.state
            self.ctx.save()

    def lane_emit(self, lane: LaneContext, event: Event | Fact) -> None:
        with self.guard:
            if isinstance(event, AgentOutput):  # lanes' output interleaves: each line names its own
                event = replace(
                    event,
                    lines=tuple(f"{lane.spec_path}: {x}" for x in event.lines),
                    lane=lane.name,
                )
            elif isinstance(event, RotationStarted):
                # the run's matrix, not the copy's
                event = replace(event, matrix=self.ctx.rows(), lane=lane.name)
            elif isinstance(event, (RotationEnded, RotationRecorded)):
                # a lane's change reaches the other specs only through its merge
                event = replace(event, downgraded=())
                if isinstance(event, RotationEnded):
                    event = replace(event, matrix=self.ctx.rows(), lane=lane.name)
            self.ctx.emit(event)

    def lane_info(self, name: str, info: dict[str, Any]) -> None:
        with self.guard:
            self.lane_news.setdefault(name, {}).update(info)
            self.ctx.note_run(lanes=dict(self.lane_news))

    def forget(self, name: str) -> None:
        """No rotation in this lane any more: `ralph inspect` stops listing it."""
        with self.guard:
            self.lane_news.pop(name, None)
            self.ctx.note_run(lanes=dict(self.lane_news))

    def reviewer(self, agent: CommandAgent) -> CommandAgent:
        """A semantic check's judge: another available agent of the pool, when there is one."""
        with self.guard:
            now = time.time()
            others = [
                s.name for s in self.ctx.pool.seats if s.available(now) and s.name != agent.name
            ]
            return self.ctx.members[others[0]].agent if others else agent

    def rotate(self, r: Running) -> Outcome:
        """In the lane's thread: one rotation in its worktree, then its work committed."""
        tick = time.perf_counter()
        lctx = r.ctx
        if lctx.rotation is None:  # the lane's own parts, made once (a snapshotter finds its repo)
            tree = Tree(lctx.opts.root, lctx.ws, ())
            judge = lambda: self.reviewer(lctx.agent)  # noqa: E731
            # the test baseline is the run's (.ralph/tests/), compared with the lane's tree
            gate = DoneGate(lctx.opts.root, lctx.ws, judge, lctx.emit, lctx.opts.test_globs)
            lctx.rotation = Rotation(lctx, tree, LaneCircuit(lctx), gate)
            lctx.repo = repo(lctx.opts.root)
        rotation = lctx.rotation
        r.circuit = rotation.circuit  # type: ignore[assignment]
        before = rotation.tree.take()
        outcome = rotation(r.spec, before, tick, r.agent)
        if outcome.changed:  # an unchanged tree has nothing to commit
            commit_all(
                lctx.repo,
                f"ralph: rotation {lctx.state.last_rotation} on {r.spec.path} ({outcome.signal})",
            )
        return outcome
