"""The check that the user's branch holds every verified lane's work: made before a lanes run
counts its specs verified (before the final verification) and as it ends. The tree verified is
the branch reported, changes in it that no merge made are a change like any other, and a spec
counts 3/3 only when its lane has nothing the branch lacks. The merger (run/merging.py) acts on
what this finds: the spec back to 2/3, its lane open again."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from dataclasses import dataclass

from ralph.errors import StateError
from ralph.rules.counts.laneregistry import Lane, Lanes
from ralph.rules.counts.matrix import downgrade_verified
from ralph.rules.counts.state import MAX_COUNT, State
from ralph.run.events import Notice
from ralph.store.repository import worktrees as wt
from ralph.store.repository.git import Repo


def commit_strays(
    repo: Repo,
    branch: str,
    own_files: Collection[str],
    emit: Callable[[Notice], None],
    state: State,
) -> State:
    """The project's tree is on `branch` (else the run stops: ralph verifies only the branch
    it reports), and changes in it that no merge made (but the run's own report files,
    `own_files`) are committed there, every verified spec back to 2/3. Returns the state
    after."""
    head = wt.current_branch(repo)
    if head != branch:
        raise StateError(
            f"the project's tree is on {head}, but the lanes merge into {branch}: "
            "ralph verifies only the branch it reports",
            f"git switch {branch} and run again",
        )
    dirty = [p for p in wt.uncommitted(repo) if p not in own_files]
    message = "ralph: changes made in the project's tree during a run"
    if dirty and wt.commit_all(repo, message, leave=own_files):
        state, dropped = downgrade_verified(state)
        said = f"; {', '.join(dropped)} 3/3 -> 2/3" if dropped else ""
        emit(Notice("warning", f"changes in the project's tree committed{said}"))
    return state


@dataclass(frozen=True)
class LeftOut:
    """What a verified lane holds that the user's branch lacks: files its worktree holds that
    ralph's commit cannot take (an unresolved merge: only its agent can settle them), or else
    commits on its branch not merged (ralph merges them when the spec is verified again)."""

    branch: str
    uncommitted: tuple[str, ...] = ()

    @property
    def why(self) -> str:
        if self.uncommitted:
            return f"left uncommitted in its worktree: {', '.join(self.uncommitted[:3])}"
        return f"{self.branch} is not merged"


def left_out(
    state: State,
    lanes: Lanes,
    retired: Mapping[str, Lane],
    repo: Repo,
    branch: str,
    worktree: Callable[[Lane], Repo | None],
) -> dict[str, LeftOut]:
    """Each spec at 3/3 whose lane (open, `retired` after its merge, or only a branch left)
    has work `branch` lacks, and what: what its worktree (`worktree(lane)`, None without
    one) holds is committed first, where ralph's commit can take it; what it cannot (an
    unresolved merge) is named, and so is a lane branch not merged."""
    found: dict[str, LeftOut] = {}
    for row in state.specs:
        if row.done_count != MAX_COUNT:
            continue
        lane = lanes.get(row.path) or retired.get(row.path) or Lane(row.path)
        lane_repo = worktree(lane)
        if lane_repo is not None:
            wt.commit_all(lane_repo, f"ralph: work left in {lane.spec}'s lane")
            left = wt.uncommitted(lane_repo)
            if left:
                found[row.path] = LeftOut(lane.branch, tuple(left))
                continue
        if wt.has_branch(repo, lane.branch) and not wt.is_merged(repo, lane.branch, branch):
            found[row.path] = LeftOut(lane.branch)
    return found
