"""rules/counts/state.py: the spec matrix as values, and the JSON the state and `status --json`
show.
(Reading state.json back, strictly, is tests/store/records/test_state.py's.)"""

from __future__ import annotations

from ralph.rules.counts.state import (
    MAX_COUNT,
    SpecState,
    State,
    Tally,
    state_to_json,
    status_to_json,
    usage_to_json,
)


def test_a_spec_needs_work_until_three_dones_and_the_matrix_is_complete_then() -> None:
    a, b = SpecState("a", done_count=MAX_COUNT), SpecState("b", done_count=MAX_COUNT - 1)
    assert not a.needs_work and b.needs_work
    state = State(specs=(a, b))
    assert not state.complete
    done = state.with_spec(SpecState("b", done_count=MAX_COUNT))
    assert done.complete and done.get("b") == SpecState("b", done_count=MAX_COUNT)
    assert state.get("b") == b  # values: the old state is unchanged
    assert state.get("missing") is None


def test_no_spec_is_no_complete_matrix() -> None:
    assert not State().complete


def test_with_spec_replaces_only_the_spec_of_that_path() -> None:
    state = State(specs=(SpecState("a"), SpecState("b")))
    assert state.with_spec(SpecState("c", done_count=1)).specs == state.specs


def test_a_cost_no_rotation_priced_is_unknown_not_free() -> None:
    unpriced = Tally(rotations=2, input_tokens=10, unpriced=2)
    assert usage_to_json(unpriced)["cost_usd"] is None
    some = Tally(rotations=2, cost_usd=0.1 + 0.2, unpriced=1)  # a lower bound, still a figure
    assert usage_to_json(some)["cost_usd"] == 0.3
    assert usage_to_json(Tally())["cost_usd"] == 0.0
    assert Tally(input_tokens=3, output_tokens=4).tokens == 7


def test_status_json_shows_the_contract_and_not_the_internal_keys() -> None:
    state = State(iteration=4, last_rotation=9, specs=(SpecState("a", done_count=3),))
    status = status_to_json(state, running=True)
    assert status["running"] is True and status["complete"] is True
    assert (status["iteration"], status["last_rotation"]) == (4, 9)
    assert set(status["specs"][0]) >= {"path", "done_count", "needs_work", "usage"}
    assert "agent_front_matter" not in status["specs"][0]
    assert "person_specs" not in status
    assert state_to_json(state)["schema_version"] == state.schema_version
