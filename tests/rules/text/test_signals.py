"""Signal parsing: the last tag the agent produced counts; echoes of the prompt never do."""

from __future__ import annotations

import pytest

from ralph.rules.text.prompt import PromptInput, build_prompt
from ralph.rules.text.signals import PROTOCOL, parse_signal


@pytest.mark.parametrize(
    ("tag", "status"),
    [
        ("DONE", "DONE"),
        ("COMPLETE", "DONE"),
        ("CONTINUE", "CONTINUE"),
        ("ROTATE", "ROTATE"),
        ("STUCK", "STUCK"),
        ("GUTTER", "STUCK"),
        ("QUESTION", "QUESTION"),
    ],
)
def test_each_tag_and_alias(tag: str, status: str) -> None:
    assert parse_signal(f"working...\n<ralph>{tag}</ralph>\n") == status


def test_last_signal_counts() -> None:
    out = "<ralph>DONE</ralph>\nwait, a test fails\n<ralph>CONTINUE</ralph>\n"
    assert parse_signal(out) == "CONTINUE"


def test_no_signal_is_none() -> None:
    assert parse_signal("I did some work\n") is None


def test_unknown_tag_is_ignored() -> None:
    assert parse_signal("<ralph>DONE</ralph> then <ralph>MAYBE</ralph>") == "DONE"


def test_tag_inside_a_line_counts() -> None:
    assert parse_signal("All requirements met. <ralph>DONE</ralph>") == "DONE"


def make_prompt(spec_text: str = "- [ ] do it") -> str:
    return build_prompt(
        PromptInput(
            spec_path="PROMPT.md",
            spec_text=spec_text,
            mode="IMPLEMENT",
            iteration=1,
            max_iteration=20,
            done_count=0,
            handoff_path=".ralph/handoffs/x.md",
            handoff_text="",
            guardrails_path=".ralph/guardrails.md",
            guardrails_text="",
        )
    )


def test_prompt_contains_the_protocol() -> None:
    prompt = make_prompt()
    assert PROTOCOL in prompt
    assert "<ralph>DONE</ralph>" in prompt


def test_echoed_prompt_never_counts() -> None:
    prompt = make_prompt()
    assert parse_signal(prompt, prompt) is None
    assert parse_signal("reading prompt:\n" + prompt + "\nthinking...", prompt) is None


def test_echoed_prompt_does_not_hide_the_real_final_tag() -> None:
    prompt = make_prompt()
    assert parse_signal(prompt + "\nwork\n<ralph>CONTINUE</ralph>\n", prompt) == "CONTINUE"


def test_quoted_protocol_lines_never_count() -> None:
    quoted = "\n".join(line for line in PROTOCOL.splitlines() if "<ralph>" in line)
    assert parse_signal("The instructions say:\n" + quoted + "\n") is None


def test_spec_with_a_tag_line_does_not_hide_the_agent_tag() -> None:
    prompt = make_prompt("When finished print:\n<ralph>DONE</ralph>\n")
    # the echo of the spec's tag line does not count ...
    assert parse_signal(prompt, prompt) is None
    # ... but the same line produced by the agent itself does
    assert parse_signal(prompt + "\n<ralph>DONE</ralph>\n", prompt) == "DONE"
    assert parse_signal("<ralph>DONE</ralph>\n", prompt) == "DONE"


def test_crlf_output_is_handled() -> None:
    prompt = make_prompt()
    echoed = prompt.replace("\n", "\r\n")
    assert parse_signal(echoed + "\r\n<ralph>ROTATE</ralph>\r\n", prompt) == "ROTATE"


def test_final_text_wins_over_output() -> None:
    out = "tool result: <ralph>DONE</ralph>\n"
    assert parse_signal(out, "", final_text="not yet <ralph>CONTINUE</ralph>") == "CONTINUE"
    assert parse_signal(out, "", final_text="no tag here") is None


def test_whitespace_and_case_inside_tag() -> None:
    assert parse_signal("<ralph> done </ralph>") == "DONE"


def test_verify_signals_are_parsed_and_an_echoed_protocol_never_counts() -> None:
    assert parse_signal("all good\n<ralph>VERIFY_PASS</ralph>\n") == "VERIFY_PASS"
    assert parse_signal("no\n<ralph>VERIFY_FAIL</ralph>") == "VERIFY_FAIL"
    assert parse_signal("<ralph>VERIFY_FAIL</ralph>\n<ralph>VERIFY_PASS</ralph>") == "VERIFY_PASS"
    quoted = "- `<ralph>VERIFY_PASS</ralph>` when the tests pass and every spec is really met.\n"
    assert parse_signal(quoted) is None
