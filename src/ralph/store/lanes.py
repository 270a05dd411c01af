"""`.ralph/lanes.json`: the lanes a parallel run has open, the branch they merge into and a
merge under way, so a run killed at any moment is resumed by the next one."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from ralph.errors import StateError
from ralph.store.files import load_json, remove_file, write_json_atomic

LANES_FILE = "lanes.json"


@dataclass(frozen=True)
class Lane:
    spec: str
    name: str  # `<name>-<hash6>`: the worktree's folder
    branch: str  # `ralph/<name>-<hash6>`
    verified_tree: str | None = None  # the tree the lane's spec reached 3/3 on
    conflict: tuple[str, ...] = ()  # files a merge of this lane conflicted on
    conflict_with: tuple[str, ...] = ()  # the specs merged since the lane started


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


def load_lanes(state_dir: Path) -> Lanes:
    data = load_json(state_dir / LANES_FILE, f".ralph/{LANES_FILE}")
    if data is None:
        return Lanes()
    try:
        return Lanes(
            integration=str(data["integration"]),
            lanes=tuple(_lane(x) for x in data["lanes"]),
            merging=data.get("merging"),
            merged=tuple(data.get("merged", ())),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise StateError(
            f".ralph/{LANES_FILE} is damaged ({exc})",
            "see `git worktree list` for the lanes' work, then delete the file",
        ) from None


def _lane(data: Any) -> Lane:
    return Lane(
        spec=str(data["spec"]),
        name=str(data["name"]),
        branch=str(data["branch"]),
        verified_tree=data.get("verified_tree"),
        conflict=tuple(data.get("conflict", ())),
        conflict_with=tuple(data.get("conflict_with", ())),
    )


def save_lanes(state_dir: Path, lanes: Lanes) -> None:
    data = asdict(lanes)
    data["schema_version"] = 1
    write_json_atomic(state_dir / LANES_FILE, data)


def drop_lanes_file(state_dir: Path) -> None:
    remove_file(state_dir / LANES_FILE)
