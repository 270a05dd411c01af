"""store/snapshots/snapshot.py: a snapshot as a value: its JSON read back strictly, and what changed
between two (the snapshots taken of real trees are tests/store/snapshots/test_snapshotter.py's)."""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from ralph.errors import StateError
from ralph.store.snapshots.fingerprint import DELETED
from ralph.store.snapshots.snapshot import Changes, Snapshot, diff_entries

ZERO = "0" * 40
A, B, C = "a" * 40, "b" * 40, "c" * 40


# -- JSON --------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "snap",
    [
        Snapshot(kind="walk", head=None, entries={}),
        Snapshot(kind="walk", head=None, entries={"a/b.txt": A, "c d": DELETED}),
        Snapshot(kind="git", head="", entries={"x": "dir"}),
        Snapshot(kind="git", head=A, entries={"new\nline": B, os.fsdecode(b"\xff\xfe"): C}),
    ],
)
def test_json_round_trip(snap: Snapshot) -> None:
    text = json.dumps(snap.to_json(), ensure_ascii=False)
    assert Snapshot.from_json(json.loads(text)) == snap


@pytest.mark.parametrize(
    "data",
    [
        None,
        [],
        "snapshot",
        {},
        {"format": 2, "kind": "git", "head": A, "entries": {}},
        {"format": 1, "kind": "svn", "head": None, "entries": {}},
        {"format": 1, "kind": "git", "head": "HEAD~1", "entries": {}},
        {"format": 1, "kind": "git", "head": None, "entries": {}},
        {"format": 1, "kind": "walk", "head": A, "entries": {}},
        {"format": 1, "kind": "walk", "head": None, "entries": []},
        {"format": 1, "kind": "walk", "head": None, "entries": {"a": 1}},
        {"format": 1, "kind": "walk", "head": None, "entries": {}, "raw_entries": {"zz": A}},
    ],
)
def test_from_json_rejects_garbage(data: Any) -> None:
    with pytest.raises(StateError, match="not a valid snapshot") as info:
        Snapshot.from_json(data)
    assert info.value.hint


# -- diff_entries ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("before", "after", "commit", "expected"),
    [
        ({}, {}, None, ()),
        ({"a": A}, {"a": A}, None, ()),
        ({"a": A}, {"a": B}, None, ("a",)),
        ({}, {"a": A}, None, ("a",)),
        ({"a": A}, {}, None, ("a",)),  # reverted to HEAD
        ({"b": A, "a": B}, {}, None, ("a", "b")),  # sorted
        # HEAD moved:
        ({}, {}, {"a": (A, B)}, ("a",)),  # committed a change
        ({"a": B}, {}, {"a": (A, B)}, ()),  # committed the dirty content as is
        ({"a": C}, {}, {"a": (A, B)}, ("a",)),  # committed something else
        ({"a": B}, {"a": B}, {"a": (A, C)}, ()),  # committed, work tree kept
        ({"a": A}, {}, {}, ("a",)),  # reverted while committing elsewhere
        ({"a": A}, {"a": A}, {}, ()),
        ({}, {}, {"a": (ZERO, A)}, ("a",)),  # added
        ({"a": A}, {}, {"a": (ZERO, A)}, ()),  # untracked file committed
        ({"a": DELETED}, {}, {"a": (A, ZERO)}, ()),  # deletion committed
        ({}, {"a": DELETED}, {"a": (ZERO, A)}, ()),  # committed then deleted: never existed
        ({}, {"a": DELETED}, {}, ("a",)),
        ({}, {}, {"a": (A, A)}, ()),  # mode-only change
    ],
)
def test_diff_entries(
    before: dict[str, str],
    after: dict[str, str],
    commit: dict[str, tuple[str, str]] | None,
    expected: tuple[str, ...],
) -> None:
    changes = diff_entries(before, after, commit)
    assert changes == Changes(expected)
    assert bool(changes) == bool(expected)
    assert len(changes) == len(expected)
