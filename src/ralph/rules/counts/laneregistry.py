"""The lanes' registry, a value: the lanes a parallel run has open, the branch they merge
into, a merge under way and the lanes merged; each of its moves returns the next registry.
store/live/lanes.py saves it; run/merging.py is its one owner."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

from ralph.rules.counts.lanes import lane_branch, lane_name


@dataclass(frozen=True)
class Lane:
    spec: str
    verified_tree: str | None = None  # the tree the lane's spec reached 3/3 on
    conflict: tuple[str, ...] = ()  # files a merge of this lane conflicted on
    conflict_with: tuple[str, ...] = ()  # the specs merged since the lane started

    @property
    def name(self) -> str:
        """`<name>-<hash6>`: the worktree's folder under `.ralph/worktrees/`."""
        return lane_name(self.spec)

    @property
    def branch(self) -> str:
        """`ralph/<name>-<hash6>`."""
        return lane_branch(self.spec)


@dataclass(frozen=True)
class Lanes:
    """The lanes' registry (saved by store/live/lanes.py): a value, like the run's state. Each move
    below returns the next registry; the run's merger (run/merging.py) is its one owner and
    saves each one it takes, so a run killed at any moment is resumed from the last."""

    integration: str = ""  # the branch the user started on; lanes merge into it
    lanes: tuple[Lane, ...] = ()
    merging: str | None = None  # the spec whose merge was started and not yet recorded
    merged: tuple[str, ...] = ()  # specs merged in this run

    def get(self, spec: str) -> Lane | None:
        return next((lane for lane in self.lanes if lane.spec == spec), None)

    def with_lane(self, lane: Lane) -> Lanes:
        others = tuple(x for x in self.lanes if x.spec != lane.spec)
        return replace(self, lanes=(*others, lane))

    def without(self, spec: str) -> Lanes:
        return replace(self, lanes=tuple(x for x in self.lanes if x.spec != spec))

    def _changed(self, spec: str, change: Callable[[Lane], Lane]) -> Lanes:
        lane = self.get(spec)
        if lane is None or (changed := change(lane)) == lane:
            return self  # unchanged: the lane keeps its place in the merge queue
        return self.with_lane(changed)

    def merge_started(self, spec: str) -> Lanes:
        """Written before git merges: a run killed meanwhile finishes or redoes it."""
        return replace(self, merging=spec)

    def merge_dropped(self) -> Lanes:
        """The merge was aborted (a conflict) or redone later: none is under way."""
        return replace(self, merging=None)

    def merge_done(self, spec: str, *, closes: bool) -> Lanes:
        """The merge of `spec`'s lane is in: merged this run, and with `closes` (its spec
        at 3/3) no longer open; else its work was shared and the lane goes on."""
        merged = (*(s for s in self.merged if s != spec), spec)
        after = replace(self, merging=None, merged=merged)
        return after.without(spec) if closes else after

    def conflicted(self, spec: str, files: tuple[str, ...]) -> Lanes:
        """A merge of `spec`'s lane conflicted on `files`: its agent resolves them against
        the specs merged meanwhile, and the tree it verified no longer speaks for it."""
        others = tuple(s for s in self.merged if s != spec)
        return self._changed(
            spec, lambda x: replace(x, conflict=files, conflict_with=others, verified_tree=None)
        )

    def resolved(self, spec: str) -> Lanes:
        """The lane took the user's branch without a conflict: a later conflict is news."""
        return self._changed(spec, lambda x: replace(x, conflict=(), conflict_with=()))

    def verified(self, spec: str, tree: str) -> Lanes:
        """The lane's spec reached 3/3 on `tree`: what its merge is judged by."""
        return self._changed(spec, lambda x: replace(x, verified_tree=tree))

    def into(self, branch: str) -> Lanes:
        """The run's lanes merge into `branch` (the user's, as the run starts)."""
        return replace(self, integration=branch)

    def finished(self) -> Lanes:
        """A verified run: nothing merged is left to remember."""
        return replace(self, merged=())
