"""rules/evidence/refusedwhy.py: the reasons `ralph status` keeps of a refused DONE."""

from __future__ import annotations

from ralph.rules.evidence.refusedwhy import LIMIT, refusal


def test_the_reasons_without_the_shared_words() -> None:
    note = (
        "DONE refused: test_command: exit code 1, expected 0; error: ModuleNotFoundError: No "
        "module named 'isodate' (what a person can do: let the agent fix the work)"
    )
    assert refusal(note) == (
        "test_command: exit code 1, expected 0; error: ModuleNotFoundError: No module named "
        "'isodate'"
    )


def test_one_line_bounded_and_nothing_for_no_note() -> None:
    assert refusal(None) is None and refusal("") is None
    assert refusal("DONE refused: a\nb") == "a b"
    long = refusal("DONE refused: " + "x" * 1000)
    assert long is not None and len(long) == LIMIT
