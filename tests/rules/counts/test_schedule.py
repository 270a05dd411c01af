"""Focused execution and the priority tiers of multi-spec mode (pure)."""

from __future__ import annotations

from ralph.rules.counts.schedule import MODIFIED, NEW, UNFINISHED, VERIFYING, next_spec, tier
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import SpecState, State


def specs(*paths: str) -> list[Spec]:
    return [Spec(path=p, text="", content_hash="h") for p in paths]


def st(*rows: SpecState) -> State:
    return State(specs=rows)


def done(path: str, count: int, changed: bool = False) -> SpecState:
    return SpecState(path, count, "DONE", "h", changed, 1)


def test_tiers() -> None:
    assert tier(SpecState("a"), "h") == NEW
    assert tier(SpecState("a", 0, "DONE", "old"), "h") == MODIFIED
    assert tier(SpecState("a", 0, "CONTINUE", "h"), "h") == UNFINISHED
    assert tier(SpecState("a", 1, "DONE", "h", True), "h") == UNFINISHED
    assert tier(done("a", 1), "h") == VERIFYING


def test_start_with_highest_priority_new_spec() -> None:
    state = st(done("PROMPT.md", 1), SpecState("specs/b.spec.md"), SpecState("specs/a.spec.md"))
    paths = ["PROMPT.md", "specs/a.spec.md", "specs/b.spec.md"]
    assert next_spec(specs(*paths), state, None, switch=False) == "specs/a.spec.md"


def test_priority_order_of_the_four_tiers() -> None:
    rows = (
        done("d4", 1),
        SpecState("c3", 0, "ROTATE", "h"),
        SpecState("b2", 0, "DONE", "old"),
        SpecState("a1"),
    )
    all_specs = specs("a1", "b2", "c3", "d4")
    state = st(*rows)
    order = []
    while state.specs:
        path = next_spec(all_specs, state, None, switch=True)
        assert path is not None
        order.append(path)
        state = st(*(s for s in state.specs if s.path != path))
    assert order == ["a1", "b2", "c3", "d4"]


def test_stay_on_current_after_continue_or_rotate() -> None:
    state = st(SpecState("a", 0, "CONTINUE", "h"), SpecState("b"))
    assert next_spec(specs("a", "b"), state, "a", switch=False) == "a"


def test_stay_on_current_after_done_with_changes() -> None:
    state = st(done("a", 1, changed=True), SpecState("b"))
    assert next_spec(specs("a", "b"), state, "a", switch=False) == "a"


def test_switch_after_done_without_changes_prefers_others() -> None:
    state = st(done("a", 1), done("b", 2))
    assert next_spec(specs("a", "b"), state, "a", switch=True) == "b"


def test_current_continues_when_it_is_the_only_one_needing_work() -> None:
    state = st(done("a", 2), done("b", 3))
    assert next_spec(specs("a", "b"), state, "a", switch=True) == "a"


def test_tier_four_prefers_lower_count_then_path() -> None:
    state = st(done("a", 2), done("b", 1), done("c", 1), done("z", 0))
    assert next_spec(specs("a", "b", "c", "z"), state, "z", switch=True) == "b"
    state = st(done("a", 2), done("b", 2))
    assert next_spec(specs("a", "b"), state, None, switch=True) == "a"


def test_tiers_one_to_three_are_alphabetical_with_prompt_first() -> None:
    paths = ["PROMPT.md", "specs/a.spec.md", "specs/b.spec.md"]
    state = st(*(SpecState(p, 0, "CONTINUE", "h") for p in reversed(paths)))
    assert next_spec(specs(*paths), state, None, switch=False) == "PROMPT.md"


def test_new_spec_interrupts_current_work() -> None:
    state = st(SpecState("a", 0, "CONTINUE", "h"), SpecState("b"))
    assert next_spec(specs("a", "b"), state, "a", switch=False, new=("b",)) == "b"


def test_known_unprocessed_spec_does_not_interrupt() -> None:
    state = st(SpecState("a", 0, "CONTINUE", "h"), SpecState("b"))
    assert next_spec(specs("a", "b"), state, "a", switch=False, new=()) == "a"


def test_complete_when_all_at_three() -> None:
    state = st(done("a", 3), done("b", 3))
    assert next_spec(specs("a", "b"), state, "a", switch=True) is None


def test_removed_current_spec_is_not_chosen() -> None:
    state = st(SpecState("a", 0, "CONTINUE", "h"), SpecState("b", 1, "DONE", "h"))
    assert next_spec(specs("b"), state, "a", switch=False) == "b"


def test_restart_resumes_from_highest_priority() -> None:
    state = st(done("a", 2), SpecState("b", 0, "CONTINUE", "h"))
    assert next_spec(specs("a", "b"), state, None, switch=False) == "b"
