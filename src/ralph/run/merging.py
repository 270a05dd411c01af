"""The integration of lanes, one at a time: opening a lane's worktree, bringing it up to date
with the branch the user started on, merging it there (a merge that changes files is a change
like any other), conflicts handed back to the lane, and what a killed run left half done.
Beside it: the specs as the lanes have them (run/lanespecs.py), and the check that the user's
branch holds every verified lane's work (run/lanecheck.py), whose findings it acts on."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ralph.errors import UsageError, docs_page
from ralph.rules.counts.laneregistry import Lane, Lanes
from ralph.rules.counts.lanes import (
    BRANCH_PREFIX,
    after_merge,
    drop_to_review,
    hold,
    is_lane_name,
)
from ralph.rules.counts.state import MAX_COUNT, State
from ralph.run.context import Shared
from ralph.run.events import Notice
from ralph.run.facts import LaneClosed, LaneConflict, LaneLeftOut, LaneMerged, LaneOpened
from ralph.run.interrupts import deferred_interrupts
from ralph.run.lanecheck import commit_strays, left_out
from ralph.run.ledger import StateFile
from ralph.store.live.lanes import load_lanes, save_lanes
from ralph.store.repository import worktrees as wt
from ralph.store.repository.git import Repo


class Integration:
    """The lanes of a run and the one queue through which they reach the user's branch. It
    is the one owner of the lanes' registry (a value: rules/counts/laneregistry.py), which it
    takes to the next by the registry's own moves and saves in one place (`_keep`, to
    ralph's private store: store/live/lanes.py); the run's state is passed to each step that
    moves a counter, and the step returns the new one, saved through the scheduler's
    StateFile (lent, as to the final verification) before the registry moves on: a merge's
    counters are on disk before the registry says it is done (a kill -9 redoes it)."""

    def __init__(self, run: Shared, statefile: StateFile) -> None:
        self.run = run
        self.statefile = statefile  # the scheduler's: the one writer of state.json
        self.root = run.opts.root
        self.repo = wt.repo(self.root, run.git)  # every git command of the run holds run.git
        self.lanes = load_lanes(self.root)
        self.branch = wt.current_branch(self.repo)
        # Merged lanes whose worktree is kept until the run ends: a later merge usually sends
        # their spec back to 2/3 for one more review, which then needs no new worktree.
        self.retired: dict[str, Lane] = {}
        self._pruned = False  # the worktrees' list, before the run's first new lane
        # each open lane's repository, checked once per worktree (git.call checks at each
        # call that the files saying where it is have not changed since)
        self._repos: dict[str, Repo] = {}

    def _keep(self, lanes: Lanes) -> None:
        """The registry's next value, saved before anything acts on it: the one place it
        changes."""
        with deferred_interrupts():
            if lanes != self.lanes:
                save_lanes(self.root, lanes)
            self.lanes = lanes

    def worktree(self, lane: Lane) -> Path:
        return wt.lane_path(self.root, lane.name)

    # ------------------------------------------------------------------ start and resume

    def prepare(self, state: State) -> State:
        """Before any lane runs: finish what a killed run left, then refuse an unclean tree.
        Returns the state after what it finished."""
        run = self.run
        if self.lanes.integration and self.lanes.lanes and self.lanes.integration != self.branch:
            raise UsageError(
                f"the open lanes merge into {self.lanes.integration}, but {self.branch} is "
                "checked out",
                f"git switch {self.lanes.integration} and run again",
            )
        if self.lanes.merging is not None:
            state = self._finish_merge(state, self.lanes.merging)
        dirty = [line[3:] for line in wt.unclean(self.repo)]
        dirty = [p for p in dirty if p not in run.opts.own_files]
        if dirty or wt.merging(self.repo):
            shown = ", ".join(dirty[:5]) + (" ..." if len(dirty) > 5 else "")
            raise UsageError(
                f"--parallel needs a clean work tree to merge lanes into; uncommitted: "
                f"{shown or 'a merge in progress'}",
                "commit or stash these changes (git stash -u), then run again "
                f"({docs_page('how-to/lanes.md')})",
            )
        self._keep(self.lanes.into(self.branch))
        for lane in self.lanes.lanes:
            state = self._resume(state, lane)
        return state

    def _finish_merge(self, state: State, spec: str) -> State:
        """ralph died during a merge: a half-done one is aborted (and redone later); one that
        completed is recorded now, as a change (nothing proves otherwise)."""
        run, lane = self.run, self.lanes.get(spec)
        if wt.merging(self.repo):
            wt.abort_merge(self.repo)
            run.emit(Notice("warning", f"a merge of {spec}'s lane was cut short: aborted, redone"))
        elif lane is not None and wt.is_merged(self.repo, lane.branch):
            state, dropped = after_merge(state, spec, changed=True, same_tree=False)
            self.statefile.save(state)
            self._merged(lane, True, dropped, closes=True)
        self._keep(self.lanes.merge_dropped())
        return state

    def _resume(self, state: State, lane: Lane) -> State:
        """A lane left by an earlier run: its worktree back. Its uncommitted work stays so
        (only counted work is the lane's base: run/lanework.py); its spec leaves 3/3."""
        run, path = self.run, self.worktree(lane)
        if not wt.has_branch(self.repo, lane.branch):
            self._keep(self.lanes.without(lane.spec))
            return state
        wt.add_worktree(self.repo, self.root, lane.name, self.branch)
        dropped = drop_to_review(state, lane.spec)
        if dropped != state and wt.uncommitted(wt.repo(path, self.run.git)):
            state = dropped
            self.statefile.save(state)
            run.emit(Notice("warning", f"{lane.spec}: work left in its lane, not counted yet"))
        return state

    # ------------------------------------------------------------------ lanes

    def open(self, spec: str) -> tuple[Lane, Callable[[], None] | None, bool]:
        """The spec's lane: the one already open, or a new worktree. A new lane's worktree
        (a new branch from the user's branch as it is now) is made by the returned call, in
        the lane's own thread, so lanes open side by side; a lane whose branch is left from an
        earlier run gets its worktree back now. True when its worktree is new (what was known
        of an earlier one is void)."""
        lane = self.lanes.get(spec)
        if lane is None:
            lane = self.retired.pop(spec, None) or Lane(spec)
            self._keep(self.lanes.with_lane(lane))
        path = self.worktree(lane)
        if (path / ".git").exists():
            return lane, None, False
        self._repos.pop(lane.name, None)  # a new worktree: checked again
        if wt.has_branch(self.repo, lane.branch):
            wt.add_worktree(self.repo, self.root, lane.name, self.branch)
            self.run.emit(LaneOpened(spec, lane.branch, self.run.ws.rel(path)))
            return lane, None, True
        start = wt.heads(self.repo, self.branch) or self.branch  # the tree the lane starts from
        if not self._pruned:  # a worktree folder deleted by hand is forgotten first
            wt.prune_worktrees(self.repo)
            self._pruned = True
        run, repo, root = self.run, self.repo, self.root  # fixed for the run: safe in a thread

        def make() -> None:
            wt.add_worktree(repo, root, lane.name, start, prune=False)
            run.emit(LaneOpened(spec, lane.branch, run.ws.rel(path)))

        return lane, make, True

    def update(self, state: State, lane: Lane) -> State:
        """Bring the user's branch into an open lane before its next rotation; a conflict is
        aborted and handed to the lane's agent. Returns the state after."""
        lane_repo = self._repo(lane)
        held = wt.uncommitted(lane_repo)  # work not counted yet: uncommitted (run/lanework.py)
        if wt.is_merged(lane_repo, self.branch) or (held and _touches(lane_repo, self, held)):
            return state  # the branch after its next counted DONE, once that work is committed
        message = f"ralph: {self.branch} into {lane.branch}"
        merged = wt.merge(lane_repo, self.branch, message, trees=False)
        if merged.ok:
            self._keep(self.lanes.resolved(lane.spec))
        elif merged.conflicts != lane.conflict:
            state = self._conflict(state, lane, merged.conflicts, "update")
        return state

    def unresolved(self, spec: str) -> bool:
        """The lane conflicted with the user's branch and has not merged it since."""
        lane = self.lanes.get(spec)
        if lane is None or not lane.conflict:
            return False
        return not wt.is_merged(self._repo(lane), self.branch)

    def verified(self, spec: str) -> None:
        """The lane's spec reached 3/3: the tree it did so on is what its merge is judged by."""
        lane = self.lanes.get(spec)
        if lane is not None:
            self._keep(self.lanes.verified(spec, wt.head_tree(self._repo(lane))))

    def ready(self, state: State, busy: set[str]) -> list[Lane]:
        """Lanes waiting to merge: their spec at 3/3 and no rotation running."""
        return [
            lane
            for lane in self.lanes.lanes
            if lane.spec not in busy
            and (row := state.get(lane.spec))
            and row.done_count == MAX_COUNT
        ]

    def merge(self, state: State, lane: Lane, queued: set[str], *, closes: bool = True) -> State:
        """Merge one lane into the user's branch; the counters follow what it changed: the
        state after. With `closes` (its spec at 3/3) the lane is done; else (rules/lanes.
        shares: a counted DONE that changed files) its work is shared and the lane goes on."""
        if not closes and wt.is_merged(self.repo, lane.branch):
            return state  # nothing of its own that the user's branch lacks
        with deferred_interrupts():
            self._keep(self.lanes.merge_started(lane.spec))
            merged = wt.merge(self.repo, lane.branch, f"ralph: merge {lane.spec} ({lane.branch})")
            if not merged.ok:
                self._keep(self.lanes.merge_dropped())
                return self._conflict(state, lane, merged.conflicts, "merge")
            state, dropped = after_merge(
                state,
                lane.spec,
                changed=merged.changed,
                same_tree=merged.tree == lane.verified_tree or not closes,
                queued=queued - {lane.spec},
            )
            self.statefile.save(state)
            self._merged(lane, merged.changed, dropped, closes)
        return state

    def settle(self, state: State) -> State:
        """Before the run counts its specs verified (no lane running, every merge done): the
        tree it verifies and reports is the user's branch, with every lane's work in it
        (run/lanecheck.py); then `unverified`. Returns the state after."""
        own, emit = self.run.opts.own_files, self.run.emit
        return self.unverified(commit_strays(self.repo, self.branch, own, emit, state))

    def unverified(self, state: State) -> State:
        """A spec at 3/3 whose lane has work the user's branch lacks (a commit not merged, or
        work its worktree holds that ralph's commit cannot take: an unresolved merge) goes
        back to 2/3, its lane open again: no run ends with it counted verified. Its handoff
        says what its agent must settle (run/lanerecords.py)."""
        found = left_out(state, self.lanes, self.retired, self.repo, self.branch, self._worked)
        for spec, left in found.items():
            state = drop_to_review(state, spec)
            if self.lanes.get(spec) is None:
                lane = self.retired.pop(spec, None) or Lane(spec)
                self._keep(self.lanes.with_lane(lane))
            self.run.emit(LaneLeftOut(spec, left.branch, self.branch, left.uncommitted))
            self.run.emit(
                Notice(
                    "warning",
                    f"{spec}: its lane's work is not in {self.branch} ({left.why}): back to 2/3, "
                    "its lane open again",
                )
            )
        return state

    def _worked(self, lane: Lane) -> Repo | None:
        """The lane's worktree, when it has one."""
        return self._repo(lane) if (self.worktree(lane) / ".git").exists() else None

    def _merged(self, lane: Lane, changed: bool, dropped: tuple[str, ...], closes: bool) -> None:
        run = self.run
        self._keep(self.lanes.merge_done(lane.spec, closes=closes))
        run.emit(LaneMerged(lane.spec, lane.branch, self.branch, changed, dropped, closes))
        # and why a spec at 3/3 drops: its checks ran on a tree the merge replaced
        again = "3/3 -> 2/3 for one more review of the merged tree"
        drops = f"; {', '.join(dropped)} {again}" if dropped else ""
        what = "lane merged" if closes else "lane's work merged (the lane goes on)"
        run.emit(Notice("info", f"{lane.spec}: {what} into {self.branch}{drops}"))
        if closes:  # kept, merged, for the review a later merge may ask for; closed at the end
            self.retired[lane.spec] = replace(
                lane, verified_tree=None, conflict=(), conflict_with=()
            )

    def _conflict(self, state: State, lane: Lane, files: tuple[str, ...], during: str) -> State:
        run = self.run
        self._keep(self.lanes.conflicted(lane.spec, files))
        held = self.lanes.get(lane.spec) or lane
        state = hold(state, lane.spec)
        self.statefile.save(state)
        run.emit(
            LaneConflict(lane.spec, lane.branch, self.branch, files, held.conflict_with, during)
        )
        run.emit(
            Notice(
                "warning",
                f"{lane.spec}: {during} of its lane conflicts in {', '.join(files)}; "
                "aborted; its agent merges and resolves (0/3 until then)",
            )
        )
        return state

    def _repo(self, lane: Lane) -> Repo:
        found = self._repos.get(lane.name)
        if found is None:
            found = self._repos[lane.name] = wt.repo(self.worktree(lane), self.run.git)
        return found

    def close(self, lane: Lane, reason: str) -> None:
        removed = wt.remove_worktree(self.repo, self.root, lane.name)
        self.run.emit(LaneClosed(lane.spec, lane.branch, removed, reason))

    def where(self) -> list[str]:
        """Where each unmerged lane's work is, for the end of a run that stops early."""
        return [
            f"{lane.spec}: branch {lane.branch}, worktree {self.run.ws.rel(self.worktree(lane))}"
            for lane in self.lanes.lanes
        ]

    def close_merged(self) -> None:
        """The merged lanes' worktrees and branches go: as the run ends, or in a thread of
        their own while the final verification runs (nothing opens a lane meanwhile)."""
        merged, self.retired = self.retired, {}
        for lane in merged.values():
            self.close(lane, "merged")

    def retire(self) -> None:
        """As the run ends: the merged lanes' worktrees and branches go, and any merged one a
        killed run left behind (git deletes only merged branches: no commit is lost)."""
        self.close_merged()
        folder = wt.lanes_folder(self.root)
        recorded = {lane.name for lane in self.lanes.lanes}
        for path in sorted(folder.iterdir()) if folder.is_dir() else ():
            name, branch = path.name, BRANCH_PREFIX + path.name
            if not is_lane_name(name) or name in recorded:
                continue  # not a lane of ralph's (never touched), or one still open
            if wt.has_branch(self.repo, branch) and wt.is_merged(self.repo, branch):
                wt.remove_worktree(self.repo, self.root, name)

    def finish(self) -> None:
        """A verified run: no lane is left open; the lanes' folder goes too."""
        for lane in list(self.lanes.lanes):  # none in a verified run; kept if unmerged
            if wt.is_merged(self.repo, lane.branch):
                self._keep(self.lanes.without(lane.spec))
                self.close(lane, "merged")
        self.retire()
        self._keep(self.lanes.finished())
        folder = wt.lanes_folder(self.root)
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def _touches(lane_repo: Repo, integration: Integration, held: list[str]) -> bool:
    """Does what the user's branch changed touch work the lane holds uncommitted? (git keeps
    that work as it is through a merge that touches none of it.)"""
    changed = wt.incoming(lane_repo, integration.branch)
    return changed is None or bool(set(changed) & set(held))
