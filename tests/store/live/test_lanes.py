"""store/live/lanes.py: the lanes' registry in ralph's store, read back as it was saved; no path
or branch is ever read from it (they are computed from each spec), and a damaged one is
one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.errors import StateError
from ralph.rules.counts.laneregistry import Lane, Lanes
from ralph.store.disk.private import store_dir
from ralph.store.live.lanes import drop_lanes_file, lanes_file, load_lanes, save_lanes

LANES = Lanes(
    integration="main",
    lanes=(
        Lane("specs/a.spec.md", verified_tree="t" * 40, conflict=("x.py",)),
        Lane("specs/b.spec.md", conflict_with=("specs/a.spec.md",)),
    ),
    merging="specs/a.spec.md",
    merged=("specs/c.spec.md",),
)


def test_the_registry_is_read_back_as_it_was_saved(tmp_path: Path) -> None:
    assert load_lanes(tmp_path) == Lanes()  # none yet
    save_lanes(tmp_path, LANES)
    assert lanes_file(tmp_path).parent == store_dir(tmp_path)
    assert load_lanes(tmp_path) == LANES
    drop_lanes_file(tmp_path)
    assert load_lanes(tmp_path) == Lanes()


def test_an_old_records_names_and_branches_are_never_read(tmp_path: Path) -> None:
    save_lanes(tmp_path, LANES)
    data = json.loads(lanes_file(tmp_path).read_text())
    data["lanes"][0] |= {"name": "../../../etc", "branch": "main"}  # schema 1 kept them
    lanes_file(tmp_path).write_text(json.dumps(data))
    lane = load_lanes(tmp_path).lanes[0]
    assert lane.name.startswith("a-") and "/" not in lane.name


@pytest.mark.parametrize(
    "data",
    [
        {"lanes": []},
        {"integration": "main", "lanes": [{"verified_tree": None}]},
        {"integration": "main", "lanes": 3},
        {"integration": "main", "lanes": ["specs/a.spec.md"]},
    ],
)
def test_a_damaged_registry_is_one_line(tmp_path: Path, data: object) -> None:
    lanes_file(tmp_path).parent.mkdir(parents=True)
    lanes_file(tmp_path).write_text(json.dumps(data))
    with pytest.raises(StateError, match=r"record of the lanes .* is damaged") as caught:
        load_lanes(tmp_path)
    assert "git worktree list" in (caught.value.hint or "")
