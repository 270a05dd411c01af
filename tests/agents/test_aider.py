"""agents/aider.py: aider."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.agents.aider import AiderAgent
from ralph.agents.command import CommandAgent
from ralph.agents.gemini import GeminiAgent
from ralph.agents.opencode import OpenCodeAgent
from ralph.agents.pi import PiAgent
from ralph.rules.text.signals import parse_signal
from tests.agent_helpers import command, replay, request


def test_aider_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv, stdin = command("aider", tmp_path, monkeypatch)
    assert argv == [
        "--yes-always",
        "--no-check-update",
        "--no-show-release-notes",
        "--analytics-disable",
        "--no-pretty",
        "--model",
        "M1",
        "--extra",
        "--message-file",
        str(tmp_path / "prompt.md"),
    ]
    assert stdin is None


@pytest.mark.parametrize(
    ("agent", "variables"),
    [
        (GeminiAgent(), {"GEMINI_TELEMETRY_ENABLED": "false"}),
        (OpenCodeAgent(), {"OPENCODE_DISABLE_AUTOUPDATE": "1", "OPENCODE_DISABLE_SHARE": "1"}),
        (PiAgent(), {"PI_TELEMETRY": "0", "PI_SKIP_VERSION_CHECK": "1"}),
        (AiderAgent(), {"AIDER_ANALYTICS": "false", "AIDER_CHECK_UPDATE": "false"}),
    ],
    ids=["gemini", "opencode", "pi", "aider"],
)
def test_telemetry_and_updates_off(
    agent: CommandAgent, variables: dict[str, str], tmp_path: Path
) -> None:
    env = agent.build_env(request(tmp_path))
    assert {k: env[k] for k in variables} == variables
    assert env["PWD"] == str(tmp_path)


AIDER_OK = b"""Aider v0.86.2
Model: anthropic/claude-mock with whole edit format
hello.txt
```
hello
```
Tokens: 1.2k sent, 28 received. Cost: $0.0040 message, $0.0040 session.
Applied edit to hello.txt
Tokens: 660 sent, 12 received. Cost: $0.0010 message, $0.0050 session.
Done. <ralph>DONE</ralph>
"""


def test_aider_usage_and_signal_from_plain_text() -> None:
    result, shown = replay(AiderAgent(), AIDER_OK)
    assert result.final_text is not None  # aider's own words: what is outside code fences
    assert "hello" not in result.final_text.splitlines()  # the file it printed back
    assert result.usage is not None
    assert (result.usage.input_tokens, result.usage.output_tokens) == (1860, 40)
    assert result.usage.cost_usd == pytest.approx(0.005)
    assert result.failure is None
    assert parse_signal(result.output_text, "", result.final_text) == "DONE"
    assert "Applied edit to hello.txt" in shown


@pytest.mark.parametrize("fence", ["```", "````", "~~~"])
def test_aider_a_file_printed_back_is_not_its_word(fence: str) -> None:
    # aider prints the files it edits (whole format) and its edit blocks between fences: a
    # signal in them is the file's, not aider's; only its own last words count.
    out = (
        b"Aider v0.86.2\nPROMPT.md\n"
        + fence.encode()
        + b"\n# goal\nsay <ralph>DONE</ralph>\n"
        + (b"```\nnot closed by a shorter fence\n" if len(fence) > 3 else b"")
        + fence.encode()
        + b"\n"
        b"Applied edit to PROMPT.md\nI still need to write the tests.\n"
    )
    result, _ = replay(AiderAgent(), out)
    assert parse_signal(result.output_text, "", result.final_text) is None
    ends = out + b"Now it is done.\n<ralph>DONE</ralph>\n"
    result, _ = replay(AiderAgent(), ends)
    assert parse_signal(result.output_text, "", result.final_text) == "DONE"


def test_aider_signal_at_the_end_of_a_long_line() -> None:
    result, _ = replay(AiderAgent(), b"Aider v0.86.2\n" + b"x" * 20_000 + b" <ralph>DONE</ralph>\n")
    assert parse_signal(result.output_text, "", result.final_text) == "DONE"


def test_aider_rate_limit_with_exit_0() -> None:
    out = (
        b'litellm.RateLimitError: AnthropicException - b\'{"type": "error"}\'\n'
        b"The API provider has rate limited you. Try again later or check your quotas.\n"
        b"Retrying in 0.2 seconds...\n"
    )
    result, _ = replay(AiderAgent(), out, exit_code=0)
    assert result.fault is not None and result.fault.kind == "rate_limit"
    assert result.failure is not None


def test_aider_recovered_after_a_retry_is_fine() -> None:
    out = b"litellm.RateLimitError: AnthropicException\nRetrying in 0.2 seconds...\n" + AIDER_OK
    result, _ = replay(AiderAgent(), out, exit_code=0)
    assert result.fault is None and result.failure is None


@pytest.mark.parametrize(
    ("line", "kind"),
    [
        (b"The API provider is not able to authenticate you. Check your API key.", "auth"),
        (b"Model anthropic/claude-mock has hit a token limit!", "overflow"),
    ],
)
def test_aider_auth_and_overflow(line: bytes, kind: str) -> None:
    result, _ = replay(AiderAgent(), b"Aider v0.86.2\n" + line + b"\n")
    assert result.fault is not None and result.fault.kind == kind


def test_aider_model_text_about_rate_limits_is_not_a_fault() -> None:
    out = b"I added a rate limit of 429 per minute to the API.\n" + AIDER_OK
    result, _ = replay(AiderAgent(), out)
    assert result.fault is None and result.failure is None
