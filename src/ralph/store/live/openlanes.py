"""The lanes a project has open, and discarding them (`ralph reset --lanes`).

Open lanes are the ones ralph's record of the lanes holds (store/live/lanes.py, in the private
store) and any folder under `.ralph/worktrees/` bearing a lane's name (a lane whose record was
lost). Each lane's worktree and branch are computed from its name, never read from a file.
Discarding a lane removes its worktree (with whatever the agent left in it) and deletes its
`ralph/...` branch even when it was never merged: that is what discarding means, so the
command asks first (on a terminal, or `--yes`), showing each path it would remove. A worktree
is removed only while it is ralph's (store/worktrees.not_owned): a link to elsewhere, a folder
git does not list there, a worktree on another branch is left as it is and said so.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.errors import StateError
from ralph.rules.counts.lanes import BRANCH_PREFIX, is_lane_name, lane_name
from ralph.store.disk import confined
from ralph.store.disk.workspace import STATE_DIR
from ralph.store.live.lanes import drop_lanes_file, load_lanes
from ralph.store.repository.worktrees import WORKTREES, lanes_folder

if TYPE_CHECKING:
    from ralph.store.repository.git import Repo

LANE_FILES = "lanes"  # `.ralph/lanes/<name>/`: a lane's prompt, log and snapshot


@dataclass(frozen=True)
class OpenLane:
    name: str  # the worktree's folder under `.ralph/worktrees/`, as rules/counts/lanes.py names it
    spec: str | None  # None: only the folder is left (its record was lost)

    @property
    def branch(self) -> str:
        return BRANCH_PREFIX + self.name

    @property
    def worktree(self) -> str:
        return f"{STATE_DIR}/{WORKTREES}/{self.name}"


def open_lanes(root: Path) -> list[OpenLane]:
    """Read from ralph's own record and the folders' names only (no git): cheap enough for
    every run's start."""
    try:
        recorded = load_lanes(root).lanes
    except StateError:  # a damaged record: the folders still say which lanes are open
        recorded = ()
    found = [OpenLane(lane_name(lane.spec), lane.spec) for lane in recorded]
    known = {lane.name for lane in found}
    folder = lanes_folder(root)
    if folder.is_dir() and not folder.is_symlink():
        for path in sorted(folder.iterdir()):
            if is_lane_name(path.name) and path.name not in known:
                found.append(OpenLane(path.name, None))
    return found


def describe(lane: OpenLane) -> str:
    """A lane as the confirmation shows it: its spec, and the worktree and branch it removes."""
    what = lane.spec if lane.spec is not None else "(its record was lost)"
    return f"{what}: worktree {lane.worktree}, branch {lane.branch}"


def discard_lanes(root: Path, lanes: list[OpenLane]) -> Iterator[str]:
    """Remove each lane's worktree and branch, then the lanes' record; each step said."""
    from ralph.store.repository import worktrees as wt
    from ralph.store.repository.git import GitLock

    try:
        r: Repo | None = wt.repo(root, GitLock())  # `ralph lanes --discard`: no run
    except StateError:  # not a git repository: no worktree of ralph's can be there
        r = None
    for lane in lanes:
        if r is not None and wt.discard_worktree(r, root, lane.name):
            yield f"lane discarded: {describe(lane)}"
        else:
            yield (
                f"left as it is: {lane.worktree} is not a worktree of ralph's (a link, a folder "
                f"git does not list on {lane.branch}, or no repository); remove it yourself if "
                "it is not yours"
            )
    drop_lanes_file(root)
    files = root / STATE_DIR / LANE_FILES
    if files.is_dir() and not files.is_symlink():  # a link there is never followed
        confined.remove_tree(root, files)
