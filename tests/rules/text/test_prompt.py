"""Prompts the providers can cache: what stays the same across rotations of a spec comes first,
what changes every rotation last, so consecutive prompts share the longest identical prefix."""

from __future__ import annotations

from dataclasses import replace

from ralph.rules.text.prompt import PromptInput, build_prompt
from ralph.rules.text.signals import PROTOCOL

SPEC = "# Greeting\n\n- [x] greet() returns hello\n- [x] tests cover it\n"
REVIEW = PromptInput(
    spec_path="specs/greet.spec.md",
    spec_text=SPEC,
    mode="REVIEW",
    iteration=7,
    max_iteration=30,
    done_count=1,
    handoff_path=".ralph/handoffs/greet.md",
    handoff_text="# Handoff\n\nAll boxes ticked.\n",
    guardrails_path=".ralph/guardrails.md",
    guardrails_text="- run `make test` before DONE\n",
    other_specs=(("specs/cli.spec.md", 0),),
)


def shared(a: str, b: str) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n


def test_the_next_review_shares_everything_up_to_the_handoff() -> None:
    first = build_prompt(REVIEW)
    second = build_prompt(
        replace(
            REVIEW,
            iteration=9,
            done_count=2,
            handoff_text=REVIEW.handoff_text + "Reviewed again: nothing to change.\n",
            other_specs=(("specs/cli.spec.md", 1),),
            recent_errors=("rotation 8 specs/cli.spec.md [IMPLEMENT] failed: exit 1",),
        )
    )
    common = second[: shared(first, second)]
    # the stable parts, whole: instructions, protocol, guardrails, spec, the mode's task, the
    # handoff as far as it was (a note that grows keeps its beginning)
    for part in (PROTOCOL, REVIEW.guardrails_text.strip(), SPEC.strip(), "You are reviewing"):
        assert part in common
    assert "All boxes ticked." in common
    # what changes comes after: the rotation number, the counter, the others' counters, errors
    assert "7/30" not in common and "9/30" not in common and "Recent failures" not in common
    assert shared(first, second) / len(second) > 0.8


def test_the_changing_parts_come_last_and_the_first_line_names_no_rotation() -> None:
    prompt = build_prompt(REVIEW)
    first_line = prompt.splitlines()[0]
    assert first_line == "# ralph: a rotation on specs/greet.spec.md"
    order = [
        prompt.index(part)
        for part in (
            "## How to end this rotation",
            "## Guardrails",
            "## The spec",
            "## Your task",
            "## Handoff from the previous rotation",
            "## This rotation: 7/30 [REVIEW], verification 1/3",
            "- specs/cli.spec.md: 0/3",
        )
    ]
    assert order == sorted(order)
