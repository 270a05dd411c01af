"""run/escalation.py: escalation to a human when the circuit breaker opens."""

from __future__ import annotations

import io

import pytest

from ralph.rules.counts.state import SpecState, State
from ralph.run.escalation import (
    Escalation,
    apply_choice,
    ask,
    describe,
    parse_choice,
)
from ralph.ui.terminal import is_headless


def escalation(spec: str | None = "PROMPT.md") -> Escalation:
    return Escalation(spec=spec, failures=3, reasons=("r1", "r2", "r3"), cooldown_left=120)


def test_three_choices_are_presented_with_what_failed() -> None:
    text = describe(escalation())
    assert "3 failures in a row on PROMPT.md" in text
    assert "  - r1\n  - r2\n  - r3\n" in text
    for option in ("[1] Accept", "[2] Abort", "[3] Continue"):
        assert option in text
    assert "wait 120 s" in text
    assert "the final verification" in describe(escalation(None))


@pytest.mark.parametrize(
    ("typed", "choice"),
    [("1", "accept"), ("accept", "accept"), (" Ab\n", "abort"), ("3", "continue"), ("x", None)],
)
def test_parse_choice(typed: str, choice: str | None) -> None:
    assert parse_choice(typed) == choice


def test_ask_repeats_until_a_valid_answer_and_end_of_input_aborts() -> None:
    out = io.StringIO()
    assert ask(escalation(), io.StringIO("maybe\n3\n"), out) == "continue"
    assert "not a choice: 'maybe'" in out.getvalue()
    assert ask(escalation(), io.StringIO(""), io.StringIO()) == "abort"
    assert ask(escalation(), io.StringIO("?\n" * 10), io.StringIO()) == "abort"


def test_headless_when_no_terminal_or_ci_is_set(monkeypatch: pytest.MonkeyPatch) -> None:
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    monkeypatch.setenv("TERM", "xterm")
    assert is_headless(io.StringIO(), env={}) is True
    assert is_headless(None, env={}) is True
    assert is_headless(Tty(), env={}) is False
    assert is_headless(Tty(), env={"CI": "true"}) is True
    assert is_headless(Tty(), env={"CI": "false"}) is False
    assert is_headless(Tty(), forced=True, env={}) is True


def test_apply_choice_records_each_resolution() -> None:
    state = State(specs=(SpecState("PROMPT.md", done_count=1),))
    accepted = apply_choice(state, escalation(), "accept")
    assert (accepted.specs[0].done_count, accepted.specs[0].override) == (3, "user_accepted")
    bypassed = apply_choice(state, escalation(), "continue")
    assert (bypassed.specs[0].done_count, bypassed.specs[0].override) == (1, "bypassed")
    assert apply_choice(state, escalation(), "abort") == state
    assert apply_choice(state, escalation(None), "accept").final.accepted is True
    assert apply_choice(state, escalation(None), "continue").final.bypassed is True
    assert apply_choice(state, escalation("gone.spec.md"), "accept").specs == state.specs
