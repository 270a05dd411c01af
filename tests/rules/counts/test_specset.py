"""rules/counts/specset.py: the specs a person wrote."""

from __future__ import annotations

from ralph.rules.counts import specset


def test_the_rules() -> None:
    disk = {"a": "1", "b": "2"}
    assert specset.take_person_changes(None, disk, None) == disk
    record = {"a": "1", "b": "2", "c": "3"}
    # c vanished during a run (not in `changed`): still recorded, and it waits
    assert specset.take_person_changes(record, disk, ("x",)) == record
    assert specset.waiting(record, disk) == ["c was removed or renamed during a run"]
    # c removed by a person between runs
    assert specset.take_person_changes(record, disk, ("c",)) == disk
    assert specset.take_person_changes(record, disk, None) == record  # unknown: nothing taken
    assert specset.waiting(disk, {"a": "1", "b": "9"}) == [
        "b: its front matter (its checks) was changed during a run"
    ]
    assert specset.waiting(disk, {"a": "1", "b": "9"}, active="b") == []
    assert specset.waiting(disk, {**disk, "new": "5"}) == []  # more specs weaken nothing
    assert specset.accept(record, disk, ("c",)) == disk
