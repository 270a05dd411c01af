"""Iteration caps from the front matter (ralph.rules.counts.caps): which rotations each cap
counts."""

from __future__ import annotations

from ralph.rules.counts.caps import Caps, cap_reason, count_rotation, mark_blocked
from ralph.rules.counts.state import SpecState, State
from ralph.specs.frontmatter import parse_front_matter


def meta(front: str) -> Caps:
    found = parse_front_matter("s.spec.md", f"---\n{front}---\n")
    assert found is not None
    return found.caps


def row(done: int = 0, implement: int = 0, review: int = 0) -> SpecState:
    return SpecState("s.spec.md", done, implement_rotations=implement, review_rotations=review)


def role(name: str, cap: int) -> str:
    return f"{name}: {{promise: P, description: d, max_iterations: {cap}}}\n"


def test_no_front_matter_or_no_cap_never_blocks() -> None:
    assert cap_reason(None, row(implement=99)) is None
    assert cap_reason(meta("test_command: x\n"), row(implement=99, review=99)) is None


def test_spec_cap_counts_every_rotation() -> None:
    m = meta("max_iterations: 3\n")
    assert cap_reason(m, row(implement=1, review=1)) is None
    assert cap_reason(m, row(2, implement=1, review=2)) == "max_iterations 3 reached (3 rotations)"


def test_coder_cap_counts_implement_rotations_and_applies_only_to_implementing() -> None:
    m = meta(role("coder", 2))
    assert cap_reason(m, row(0, implement=1, review=5)) is None
    assert cap_reason(m, row(0, implement=2)) == (
        "coder.max_iterations 2 reached (2 IMPLEMENT rotations)"
    )
    assert cap_reason(m, row(1, implement=2)) is None  # next is a review: not the coder's


def test_reviewer_cap_counts_review_rotations() -> None:
    m = meta(role("reviewer", 1))
    assert cap_reason(m, row(0, implement=5, review=1)) is None
    assert cap_reason(m, row(2, review=1)) == (
        "reviewer.max_iterations 1 reached (1 REVIEW rotation)"
    )


def test_tester_and_qa_caps_count_every_rotation() -> None:
    assert cap_reason(meta(role("tester", 2)), row(1, implement=1, review=1)) == (
        "tester.max_iterations 2 reached (2 rotations)"
    )
    assert cap_reason(meta(role("qa", 3)), row(0, implement=2)) is None


def test_count_rotation_and_mark_blocked() -> None:
    state = State(specs=(row(), SpecState("b")))
    state = count_rotation(state, "s.spec.md", "IMPLEMENT")
    state = count_rotation(state, "s.spec.md", "REVIEW")
    state = count_rotation(state, "s.spec.md", "VERIFY")  # not a spec rotation
    assert count_rotation(state, "gone", "IMPLEMENT") == state
    first = state.get("s.spec.md")
    assert first is not None
    assert (first.implement_rotations, first.review_rotations) == (1, 1)
    blocked = mark_blocked(state, {"b": "cap"})
    assert [s.blocked for s in blocked.specs] == [None, "cap"]
    assert mark_blocked(blocked, {}) == state
