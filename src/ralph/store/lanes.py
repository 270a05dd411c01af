"""The lanes' registry: the lanes a parallel run has open, the branch they merge into and a
merge under way, so a run killed at any moment is resumed by the next one.

It lives in ralph's private store (store/private.py), never in `.ralph/`, where the agent
writes: ralph deletes worktrees and checks branches out by it. Even so it records no path and
no branch: each lane's name, worktree and branch are computed from its spec's path
(rules/lanes.py), so no record, forged or stale, can lead ralph outside `.ralph/worktrees/`.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ralph.errors import StateError
from ralph.rules.lanes import lane_branch, lane_name
from ralph.store.files import load_json, remove_file, write_json_atomic
from ralph.store.private import ensure_store, store_dir

LANES_FILE = "lanes.json"
SCHEMA_VERSION = 2  # 1 kept each lane's name and branch, and lived in `.ralph/`


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
    integration: str = ""  # the branch the user started on; lanes merge into it
    lanes: tuple[Lane, ...] = ()
    merging: str | None = None  # the spec whose merge was started and not yet recorded
    merged: tuple[str, ...] = field(default_factory=tuple)  # specs merged in this run

    def get(self, spec: str) -> Lane | None:
        return next((lane for lane in self.lanes if lane.spec == spec), None)

    def with_lane(self, lane: Lane) -> Lanes:
        others = tuple(x for x in self.lanes if x.spec != lane.spec)
        return replace(self, lanes=(*others, lane))

    def without(self, spec: str) -> Lanes:
        return replace(self, lanes=tuple(x for x in self.lanes if x.spec != spec))


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
