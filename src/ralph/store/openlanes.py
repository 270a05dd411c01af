"""The lanes a project has open, and discarding them (`ralph reset --lanes`).

Open lanes are the ones `.ralph/lanes.json` records and any folder under `.ralph/worktrees/`
(a record lost with a killed run). Discarding a lane removes its worktree (with whatever the
agent left in it) and deletes its `ralph/...` branch even when it was never merged: that is
what discarding means, so the command asks first (on a terminal, or `--yes`). Only branches
under `ralph/` and folders under `.ralph/worktrees/` are ever touched.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.errors import StateError
from ralph.store.lanes import drop_lanes_file, load_lanes
from ralph.store.workspace import STATE_DIR
from ralph.store.worktrees import lanes_folder

if TYPE_CHECKING:
    from ralph.store.git import Repo

LANE_FILES = "lanes"  # `.ralph/lanes/<name>/`: a lane's prompt, log and snapshot


@dataclass(frozen=True)
class OpenLane:
    name: str  # the worktree's folder
    spec: str | None  # None: only the folder is left (its record was lost)
    branch: str | None


def open_lanes(root: Path) -> list[OpenLane]:
    """Read from ralph's own files only (no git): cheap enough for every run's start."""
    try:
        recorded = load_lanes(root / STATE_DIR).lanes
    except StateError:  # a damaged record: the folders still say which lanes are open
        recorded = ()
    found = [OpenLane(lane.name, lane.spec, lane.branch) for lane in recorded]
    known = {lane.name for lane in found}
    folder = lanes_folder(root)
    if folder.is_dir():
        for path in sorted(folder.iterdir()):
            if path.is_dir() and path.name not in known:
                found.append(OpenLane(path.name, None, None))
    return found


def describe(lane: OpenLane) -> str:
    what = lane.spec if lane.spec is not None else f"{STATE_DIR}/worktrees/{lane.name}"
    return f"{what} ({lane.branch})" if lane.branch else what


def discard_lanes(root: Path, lanes: list[OpenLane]) -> Iterator[str]:
    """Remove each lane's worktree and branch, then the lanes' record; each step said."""
    from ralph.store import worktrees as wt

    try:
        r: Repo | None = wt.repo(root)
    except StateError:  # not a git repository: the folders are all there is
        r = None
    for lane in lanes:
        path = lanes_folder(root) / lane.name
        branch = lane.branch
        if r is not None:
            branch = branch or wt.worktree_branches(r).get(str(path.resolve()))
            wt.discard_worktree(r, path, branch)
        if path.exists():  # a folder git does not know (or no repository at all)
            shutil.rmtree(path)
        yield f"lane discarded: {describe(OpenLane(lane.name, lane.spec, branch))}"
    drop_lanes_file(root / STATE_DIR)
    shutil.rmtree(root / STATE_DIR / LANE_FILES, ignore_errors=True)
