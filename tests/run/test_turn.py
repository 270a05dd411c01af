"""run/turn.py: the values a rotation is given and returns are plain and frozen: what it is
asked (`Turn`), where it works (`Place`), what its parts leave (`Attempt`, `Outcome`), and the
same for a final verification (`Trial`; its outcome is an `Outcome` too)."""

from __future__ import annotations

import dataclasses

import pytest

from ralph.run.tree import Taken
from ralph.run.turn import Attempt, Outcome, Place, Trial, Turn
from ralph.store.snapshots.snapshot import Changes
from tests.run.test_fold import outcome


@pytest.mark.parametrize("value", [Place, Turn, Attempt, Outcome, Trial])
def test_every_value_a_rotation_passes_is_frozen(value: type) -> None:
    assert dataclasses.is_dataclass(value) and value.__dataclass_params__.frozen  # type: ignore[attr-defined]


def test_an_outcome_cannot_be_changed_once_returned() -> None:
    done = outcome("DONE")
    with pytest.raises(dataclasses.FrozenInstanceError):
        done.signal = "REFUSED"  # type: ignore[misc]


def test_an_outcome_s_changes_are_those_of_the_tree_taken_after_it() -> None:
    changed = outcome("DONE", ("a.py", "b.py"))
    assert changed.changes.paths == ("a.py", "b.py") and changed.changed
    quiet = outcome("DONE")  # the control
    assert quiet.changes.paths == () and not quiet.changed


def test_a_failed_snapshot_counts_as_a_change() -> None:
    failed = Taken(None, Changes(("(snapshot failed: disk full)",)), {}, None)
    assert dataclasses.replace(outcome("DONE"), taken=failed).changed
