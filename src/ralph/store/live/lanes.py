"""The lanes' registry: the lanes a parallel run has open, the branch they merge into and a
merge under way, so a run killed at any moment is resumed by the next one.

It lives in ralph's private store (store/disk/private.py), never in `.ralph/`, where the agent
writes: ralph deletes worktrees and checks branches out by it. Even so it records no path and
no branch: each lane's name, worktree and branch are computed from its spec's path
(rules/counts/lanes.py), so no record, forged or stale, can lead ralph outside `.ralph/worktrees/`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ralph.errors import StateError
from ralph.rules.counts.laneregistry import Lane, Lanes
from ralph.store.disk.files import load_json, remove_file, write_json_atomic
from ralph.store.disk.private import ensure_store, store_dir

LANES_FILE = "lanes.json"
SCHEMA_VERSION = 2  # 1 kept each lane's name and branch, and lived in `.ralph/`


def lanes_file(root: Path) -> Path:
    return store_dir(root) / LANES_FILE


def load_lanes(root: Path) -> Lanes:
    data = load_json(lanes_file(root), f"ralph's record of the lanes ({lanes_file(root)})")
    if data is None:
        return Lanes()
    try:
        return Lanes(
            integration=str(data["integration"]),
            lanes=tuple(_lane(x) for x in data["lanes"]),
            merging=None if data.get("merging") is None else str(data["merging"]),
            merged=tuple(str(x) for x in data.get("merged", ())),
        )
    except (KeyError, TypeError, ValueError, AttributeError) as exc:
        raise StateError(
            f"ralph's record of the lanes ({lanes_file(root)}) is damaged ({exc!r})",
            "see `git worktree list` for the lanes' work, then delete the file",
        ) from None


def _lane(data: Any) -> Lane:
    # a record of schema 1 also holds "name" and "branch": never read, they are computed
    tree = data.get("verified_tree")
    return Lane(
        spec=str(data["spec"]),
        verified_tree=None if tree is None else str(tree),
        conflict=tuple(str(x) for x in data.get("conflict", ())),
        conflict_with=tuple(str(x) for x in data.get("conflict_with", ())),
    )


def save_lanes(root: Path, lanes: Lanes) -> None:
    ensure_store(root)
    data = {
        "schema_version": SCHEMA_VERSION,
        "integration": lanes.integration,
        "lanes": [
            {
                "spec": lane.spec,
                "verified_tree": lane.verified_tree,
                "conflict": list(lane.conflict),
                "conflict_with": list(lane.conflict_with),
            }
            for lane in lanes.lanes
        ],
        "merging": lanes.merging,
        "merged": list(lanes.merged),
    }
    write_json_atomic(lanes_file(root), data)


def drop_lanes_file(root: Path) -> None:
    remove_file(lanes_file(root))
