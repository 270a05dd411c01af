"""The counter rules of verification-counter-behavior and the matrix updates of multi-spec mode."""

from __future__ import annotations

import pytest

from ralph.rules.counts.matrix import (
    downgrade_verified,
    next_count,
    reconcile,
    record_rotation,
    reset_counters,
)
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import SpecState, State

NON_DONE = ["CONTINUE", "ROTATE", "STUCK", "NONE", "ERROR"]


def make_state(**counts: int) -> State:
    return State(
        specs=tuple(
            SpecState(path=p, done_count=c, last_status="DONE", last_hash="h")
            for p, c in counts.items()
        )
    )


def counts(state: State) -> dict[str, int]:
    return {s.path: s.done_count for s in state.specs}


def spec(path: str, content_hash: str = "h") -> Spec:
    return Spec(path=path, text="x", content_hash=content_hash)


def test_counter_starts_at_zero_for_new_specs() -> None:
    scan = reconcile(State(), [spec("PROMPT.md"), spec("specs/a.spec.md")])
    assert counts(scan.state) == {"PROMPT.md": 0, "specs/a.spec.md": 0}
    assert all(s.last_status is None for s in scan.state.specs)


@pytest.mark.parametrize("count", [0, 1, 2])
def test_done_without_changes_increments(count: int) -> None:
    assert next_count(count, "DONE", changed=False) == count + 1


@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_done_with_changes_resets_to_one(count: int) -> None:
    assert next_count(count, "DONE", changed=True) == 1


@pytest.mark.parametrize("signal", NON_DONE)
@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_non_done_with_changes_resets_to_zero(signal: str, count: int) -> None:
    assert next_count(count, signal, changed=True) == 0


@pytest.mark.parametrize("signal", NON_DONE)
@pytest.mark.parametrize("count", [0, 1, 2, 3])
def test_non_done_without_changes_keeps_counter(signal: str, count: int) -> None:
    assert next_count(count, signal, changed=False) == count


def test_counter_never_exceeds_three() -> None:
    assert next_count(3, "DONE", changed=False) == 3
    state = make_state(a=3)
    for _ in range(5):
        state, _ = record_rotation(state, "a", "DONE", False, "h")
    assert counts(state) == {"a": 3}


def test_each_spec_keeps_its_own_counter() -> None:
    state = make_state(a=0, b=2)
    state, _ = record_rotation(state, "a", "DONE", False, "h")
    assert counts(state) == {"a": 1, "b": 2}
    state, _ = record_rotation(state, "b", "DONE", False, "h")
    assert counts(state) == {"a": 1, "b": 3}


def run_sequence(steps: list[tuple[str, bool]]) -> list[int]:
    state = make_state(a=0)
    seen = []
    for signal, changed in steps:
        state, _ = record_rotation(state, "a", signal, changed, "h")
        seen.append(counts(state)["a"])
    return seen


def test_example_1_implementation_and_verification() -> None:
    assert run_sequence([("DONE", True), ("DONE", False), ("DONE", False)]) == [1, 2, 3]


def test_example_2_rotation_without_completion() -> None:
    assert run_sequence([("ROTATE", False), ("DONE", True), ("DONE", False)]) == [0, 1, 2]


def test_example_3_issue_found_during_verification() -> None:
    assert run_sequence([("DONE", True), ("DONE", True), ("DONE", False)]) == [1, 1, 2]


def test_example_4_context_exhaustion_during_verification() -> None:
    steps = [("DONE", True), ("DONE", False), ("ROTATE", False), ("DONE", False)]
    assert run_sequence(steps) == [1, 2, 2, 3]


def test_example_5_selective_propagation() -> None:
    state = make_state(A=3, B=2, C=0, D=0)
    state, dropped = record_rotation(state, "D", "DONE", True, "h2")
    assert counts(state) == {"A": 2, "B": 2, "C": 0, "D": 1}
    assert dropped == ("A",)


@pytest.mark.parametrize(("signal", "expected"), [("DONE", 1), ("CONTINUE", 0), ("STUCK", 0)])
def test_propagation_active_spec_resets_by_its_own_status(signal: str, expected: int) -> None:
    state = make_state(a=2, b=3, c=1, d=0)
    state, _ = record_rotation(state, "a", signal, True, "h")
    assert counts(state) == {"a": expected, "b": 2, "c": 1, "d": 0}


def test_no_propagation_without_changes() -> None:
    state = make_state(a=1, b=3)
    state, dropped = record_rotation(state, "a", "CONTINUE", False, "h")
    assert counts(state) == {"a": 1, "b": 3}
    assert dropped == ()


def test_other_specs_keep_their_state_except_the_downgrade() -> None:
    state = State(
        specs=(
            SpecState("a", 0, "CONTINUE", "ha", False, 4),
            SpecState("b", 3, "DONE", "hb", False, 3),
        )
    )
    state, _ = record_rotation(state, "a", "DONE", True, "ha2")
    a, b = state.specs
    assert (a.done_count, a.last_status, a.last_hash, a.modified_files, a.rotations) == (
        1,
        "DONE",
        "ha2",
        True,
        5,
    )
    assert b == SpecState("b", 2, "DONE", "hb", False, 3)


def test_processed_spec_records_status_hash_and_flag() -> None:
    state = make_state(a=0)
    state, _ = record_rotation(state, "a", "NONE", False, "new-hash")
    assert state.specs[0] == SpecState("a", 0, "NONE", "new-hash", False, 1)


def test_deleted_active_spec_still_propagates() -> None:
    state = make_state(a=3)
    state, dropped = record_rotation(state, "gone", "DONE", True, None)
    assert counts(state) == {"a": 2}
    assert dropped == ("a",)


def test_downgrade_verified_only_touches_three() -> None:
    state, dropped = downgrade_verified(make_state(a=0, b=1, c=2, d=3))
    assert counts(state) == {"a": 0, "b": 1, "c": 2, "d": 2}
    assert dropped == ("d",)


def test_reconcile_adds_removes_and_keeps_unchanged() -> None:
    state = State(
        specs=(
            SpecState("a", 2, "DONE", "ha", False, 2),
            SpecState("b", 3, "DONE", "hb", False, 3),
        )
    )
    scan = reconcile(state, [spec("a", "ha"), spec("c", "hc")])
    assert scan.added == ("c",)
    assert scan.removed == ("b",)
    assert scan.modified == ()
    assert scan.state.specs == (SpecState("a", 2, "DONE", "ha", False, 2), SpecState("c"))


def test_reconcile_modified_spec_goes_back_to_zero_and_keeps_old_hash() -> None:
    state = State(specs=(SpecState("a", 3, "DONE", "old", False, 3),))
    scan = reconcile(state, [spec("a", "new")])
    assert scan.modified == ("a",)
    assert scan.state.specs == (SpecState("a", 0, "DONE", "old", False, 3),)
    again = reconcile(scan.state, [spec("a", "new")])
    assert again.modified == ()  # reported once, not on every re-scan
    assert again.state == scan.state


def test_reconcile_drops_current_spec_when_removed() -> None:
    state = State(current_spec="a", specs=(SpecState("a"), SpecState("b")))
    assert reconcile(state, [spec("b")]).state.current_spec is None


def test_reset_keeps_status_hash_and_flag() -> None:
    state = State(
        iteration=9,
        last_rotation=12,
        max_iteration=20,
        current_spec="a",
        specs=(SpecState("a", 2, "CONTINUE", "ha", True, 5), SpecState("b", 3, "DONE", "hb")),
    )
    after = reset_counters(state)
    assert after.iteration == 0
    assert after.last_rotation == state.last_rotation  # numbers go on after a reset
    assert after.current_spec is None
    assert after.specs == (
        SpecState("a", 0, "CONTINUE", "ha", True, 5),
        SpecState("b", 0, "DONE", "hb", False, 0),
    )
