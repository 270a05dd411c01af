"""Gemini CLI, Cursor agent, opencode, pi and aider adapters: command lines and parsers, fed
with output recorded from the real CLIs (Cursor: from its documented schema)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ralph.agents.aider import AiderAgent
from ralph.agents.builtin import ARG_PROMPT_MAX
from ralph.agents.command import CommandAgent
from ralph.agents.cursor import CursorAgent
from ralph.agents.gemini import GeminiAgent
from ralph.agents.opencode import OpenCodeAgent
from ralph.agents.pi import PiAgent
from ralph.agents.registry import make_agent
from ralph.agents.result import Usage
from ralph.rules.signals import parse_signal
from tests.agent_helpers import fake_cli, fixture, replay, replay_fixture, request

BIG = "x" * (ARG_PROMPT_MAX + 1)


def command(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prompt: str = "do the work"
) -> tuple[list[str], Path | None]:
    exe = {"cursor": "cursor-agent"}.get(name, name)
    fake_cli(tmp_path / "bin", exe, monkeypatch)
    agent = make_agent(name, None, {}, "M1", ["--extra"])
    argv, stdin = agent.command(request(tmp_path, prompt))
    assert argv[0] == str(tmp_path / "bin" / exe)
    return list(argv[1:]), stdin


# --- command lines --------------------------------------------------------------------------


def test_gemini_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv, stdin = command("gemini", tmp_path, monkeypatch)
    assert argv == [
        "--output-format",
        "stream-json",
        "--yolo",
        "--skip-trust",
        "-m",
        "M1",
        "--extra",
        "-p",
        "do the work",
    ]
    assert stdin is None  # Gemini appends piped stdin to the prompt


def test_gemini_long_prompt_points_at_the_prompt_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv, stdin = command("gemini", tmp_path, monkeypatch, BIG)
    assert BIG not in argv
    assert str(tmp_path / "prompt.md") in argv[-1]
    assert stdin is None  # read only within 500 ms of Gemini's start: unreliable


def test_cursor_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv, stdin = command("cursor", tmp_path, monkeypatch)
    assert argv == [
        "-p",
        "--force",
        "--trust",
        "--output-format",
        "stream-json",
        "--model",
        "M1",
        "--extra",
        "do the work",
    ]
    assert stdin is None


def test_cursor_long_prompt_points_at_the_prompt_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv, _ = command("cursor", tmp_path, monkeypatch, BIG)
    assert BIG not in argv
    assert str(tmp_path / "prompt.md") in argv[-1]
    assert len(argv[-1]) < 1000


def test_opencode_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv, stdin = command("opencode", tmp_path, monkeypatch, "-starts with a dash")
    assert argv == [
        "run",
        "--format",
        "json",
        "--auto",
        "-m",
        "M1",
        "--extra",
        "--",
        "-starts with a dash",
    ]
    assert stdin is None


def test_opencode_long_prompt_goes_to_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv, stdin = command("opencode", tmp_path, monkeypatch, BIG)
    assert BIG not in argv
    assert "-f" not in argv  # an attached file is cut at 50 KB
    assert stdin == tmp_path / "prompt.md"


def test_pi_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv, stdin = command("pi", tmp_path, monkeypatch)
    assert argv == ["-p", "--mode", "json", "--model", "M1", "--extra", "do the work"]
    assert stdin is None


def test_pi_long_prompt_is_attached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv, _ = command("pi", tmp_path, monkeypatch, BIG)
    assert BIG not in argv
    assert f"@{tmp_path / 'prompt.md'}" in argv


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


# --- Gemini ---------------------------------------------------------------------------------


def _secure_folder(tmp: Path) -> Path:
    """A folder whose every parent only its owner may write (Gemini's rule for its system
    defaults file): temporary folders are below /tmp or /dev/shm, so one inside the checkout."""
    folder = Path(__file__).resolve().parent.parent / "build" / f"cache-{tmp.name}"
    folder.mkdir(parents=True, exist_ok=True)
    if any(p.stat().st_mode & 0o022 for p in (folder, *folder.parents)):
        shutil.rmtree(folder)
        pytest.skip("the checkout is below a folder others may write")
    return folder


def test_gemini_auto_update_and_usage_statistics_off_through_system_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", raising=False)
    cache = _secure_folder(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    try:
        env = GeminiAgent().build_env(request(tmp_path))
        defaults = json.loads(Path(env["GEMINI_CLI_SYSTEM_DEFAULTS_PATH"]).read_text())
        assert defaults["general"]["enableAutoUpdate"] is False
        assert defaults["privacy"]["usageStatisticsEnabled"] is False
        assert Path(env["GEMINI_CLI_SYSTEM_DEFAULTS_PATH"]).parent == cache / "ralph"
    finally:
        shutil.rmtree(cache)
    own = {"GEMINI_CLI_SYSTEM_DEFAULTS_PATH": "/etc/mine.json"}
    assert GeminiAgent(env=own).build_env(request(tmp_path))["GEMINI_CLI_SYSTEM_DEFAULTS_PATH"] == (
        "/etc/mine.json"
    )


def test_gemini_gets_no_defaults_file_where_it_would_call_it_insecure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below a folder others may write (a HOME under /tmp), Gemini skips the file with a
    warning that hid the real error: ralph passes none (telemetry stays off by variable)."""
    monkeypatch.delenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", raising=False)
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o1777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared / "cache"))
    env = GeminiAgent().build_env(request(tmp_path))
    assert "GEMINI_CLI_SYSTEM_DEFAULTS_PATH" not in env
    assert env["GEMINI_TELEMETRY_ENABLED"] == "false"


def test_a_gemini_that_fails_to_start_reports_its_real_cause_not_its_chatter() -> None:
    """Exit 41 without a login: the YOLO notice and the defaults warning come first on stderr;
    the error names the missing auth method."""
    stderr = (
        "Security Warning: Skipping system defaults file '/x/d.json': Parent directory '/tmp' "
        'is insecure. To fix this, run: sudo chmod g-w,o-w "/tmp"\n'
        "YOLO mode is enabled. All tool calls will be automatically approved.\n"
        "Please set an Auth method in your /h/.gemini/settings.json or specify one of the "
        "following environment variables before running: GEMINI_API_KEY\n"
    )
    result, _ = replay(GeminiAgent(), b"", stderr.encode(), exit_code=41)
    assert result.failure is not None
    assert result.failure.endswith(
        ": Please set an Auth method in your /h/.gemini/settings.json"
        " or specify one of the following environment variables before running: GEMINI_API_KEY"
    )
    assert "chmod" not in result.failure


def test_gemini_success() -> None:
    result, shown = replay(GeminiAgent(), fixture("gemini-write-done.stdout"))
    assert result.final_text == "Created hello.txt. <ralph>DONE</ralph>"  # after the last tool
    assert result.usage == Usage(1334, 76, None)
    assert result.failure is None
    assert "[write_file] /root/.cache/ralph-e2e/scratch/hello.txt" in shown
    assert "Creating the file." in shown
    assert not any("report completion" in line for line in shown)  # the echoed prompt


def test_gemini_streamed_text_is_shown_line_by_line_and_joined_for_the_signal() -> None:
    events = [
        {"type": "message", "role": "user", "content": "say <ralph>DONE</ralph>"},
        {
            "type": "message",
            "role": "assistant",
            "content": "All good.\nSignal: <ral",
            "delta": True,
        },
        {"type": "message", "role": "assistant", "content": "ph>DONE</ralph>", "delta": True},
        {"type": "result", "status": "success", "stats": {"input_tokens": 5, "output_tokens": 2}},
    ]
    stdout = "".join(json.dumps(e) + "\n" for e in events).encode()
    result, shown = replay(GeminiAgent(), stdout)
    assert result.final_text == "All good.\nSignal: <ralph>DONE</ralph>"
    assert shown[:2] == ["All good.", "Signal: <ralph>DONE</ralph>"]


def test_gemini_daily_quota_is_a_rate_limit() -> None:
    result = replay_fixture(GeminiAgent(), "gemini-daily-quota", exit_code=173)
    assert result.fault is not None and result.fault.kind == "rate_limit"
    assert "exhausted your daily quota" in result.fault.message


def test_gemini_exit_0_without_a_result_is_a_failure_not_its_last_warning() -> None:
    stdout = b"\n".join(fixture("gemini-write-done.stdout").splitlines()[:3]) + b"\n"
    stderr = b"Ripgrep is not available. Falling back to GrepTool.\n"
    result, _ = replay(GeminiAgent(), stdout, stderr, exit_code=0)
    assert result.failure == "Gemini CLI ended without a successful result"


def test_gemini_invalid_key_is_an_auth_error() -> None:
    result = replay_fixture(GeminiAgent(), "gemini-bad-key", exit_code=144)
    assert result.fault is not None and result.fault.kind == "auth"


def test_gemini_auth_exit_code_without_output() -> None:
    result, _ = replay(GeminiAgent(), b"", b"Invalid auth method selected.\n", exit_code=41)
    assert result.fault is not None and result.fault.kind == "auth"
    assert result.failure == "exit code 41: Invalid auth method selected."


# --- Cursor (documented schema) -----------------------------------------------------------

CURSOR_EVENTS = [
    {"type": "system", "subtype": "init", "model": "gpt-5", "cwd": "/w"},
    {
        "type": "user",
        "message": {"role": "user", "content": [{"type": "text", "text": "<ralph>DONE</ralph>"}]},
    },
    {
        "type": "assistant",
        "message": {"role": "assistant", "content": [{"type": "text", "text": "Writing."}]},
    },
    {
        "type": "tool_call",
        "subtype": "started",
        "call_id": "c1",
        "tool_call": {"writeToolCall": {"args": {"path": "hello.txt", "fileText": "hi"}}},
    },
    {
        "type": "tool_call",
        "subtype": "completed",
        "call_id": "c1",
        "tool_call": {"writeToolCall": {"args": {"path": "hello.txt"}, "result": {"success": {}}}},
    },
    {
        "type": "assistant",
        "message": {
            "role": "assistant",
            "content": [{"type": "text", "text": "Done. <ralph>DONE</ralph>"}],
        },
    },
    {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "Writing.Done. <ralph>DONE</ralph>",
        "usage": {"inputTokens": 900, "outputTokens": 40, "cacheReadTokens": 100},
    },
]


def test_cursor_success() -> None:
    stdout = "".join(json.dumps(e) + "\n" for e in CURSOR_EVENTS).encode()
    result, shown = replay(CursorAgent(), stdout)
    assert result.final_text == "Writing.Done. <ralph>DONE</ralph>"
    assert result.usage == Usage(1000, 40, None)
    assert shown == [
        "[cursor] model gpt-5",
        "Writing.",
        "[write] hello.txt",
        "Done. <ralph>DONE</ralph>",
        "[result] success, 1,000 tokens in, 40 out",
    ]


def test_cursor_usage_limit_on_stderr() -> None:
    stdout = "".join(json.dumps(e) + "\n" for e in CURSOR_EVENTS[:3]).encode()
    stderr = b"Error: You've hit your usage limit\nGet Cursor Pro for more Agent usage.\n"
    result, _ = replay(CursorAgent(), stdout, stderr, exit_code=1)
    assert result.fault is not None and result.fault.kind == "rate_limit"
    assert result.final_text == "Writing."


def test_cursor_not_logged_in() -> None:
    result, _ = replay(
        CursorAgent(), b"", b"Error: Authentication required. Please run 'cursor-agent login'\n", 1
    )
    assert result.fault is not None and result.fault.kind == "auth"


# --- opencode -------------------------------------------------------------------------------


def test_opencode_success() -> None:
    result, shown = replay(OpenCodeAgent(), fixture("opencode-write-done.stdout"))
    assert result.final_text == "Created hello.txt. <ralph>DONE</ralph>"
    assert result.usage == Usage(1334, 76, 0.0)  # cost reported (0 for the mock's model)
    assert result.failure is None
    assert "[write] /root/.cache/ralph-e2e/scratch/hello.txt" in shown


def test_opencode_429_is_a_rate_limit_with_retry_after() -> None:
    result = replay_fixture(OpenCodeAgent(), "opencode-429", exit_code=1)
    assert result.fault is not None and result.fault.kind == "rate_limit"
    assert result.fault.resets_at is not None  # retry-after: 0 -> now


def test_opencode_401_is_an_auth_error() -> None:
    result = replay_fixture(OpenCodeAgent(), "opencode-401", exit_code=1)
    assert result.fault is not None and result.fault.kind == "auth"
    assert result.fault.message == "invalid x-api-key"


def test_opencode_context_overflow() -> None:
    event = {
        "type": "error",
        "error": {"name": "ContextOverflowError", "data": {"message": "too big"}},
    }
    result, _ = replay(OpenCodeAgent(), json.dumps(event).encode() + b"\n", exit_code=1)
    assert result.fault is not None and result.fault.kind == "overflow"


# --- pi -------------------------------------------------------------------------------------


def test_pi_success() -> None:
    result, shown = replay(PiAgent(), fixture("pi-write-done.stdout"))
    assert result.final_text == "Created hello.txt. <ralph>DONE</ralph>"
    assert result.usage == Usage(1334, 76, 0.0)
    assert result.failure is None
    assert "[write] hello.txt" in shown
    assert not any("report completion" in line for line in shown)  # the echoed prompt


def test_pi_error_with_exit_0_is_a_failure_and_a_fault() -> None:
    result = replay_fixture(PiAgent(), "pi-401", exit_code=0)
    assert result.process.exit_code == 0
    assert result.fault is not None and result.fault.kind == "auth"
    assert result.failure is not None and result.failure.startswith("401 ")


def test_pi_rate_limit_after_retries() -> None:
    message = {
        "role": "assistant",
        "content": [],
        "stopReason": "error",
        "errorMessage": '429 {"type":"error","error":{"type":"rate_limit_error","message":"slow"}}',
    }
    events = [
        {"type": "auto_retry_start", "attempt": 1, "maxAttempts": 3, "errorMessage": "429"},
        {"type": "message_end", "message": message},
        {"type": "auto_retry_end", "success": False, "finalError": message["errorMessage"]},
    ]
    stdout = "".join(json.dumps(e) + "\n" for e in events).encode()
    result, shown = replay(PiAgent(), stdout)
    assert result.fault is not None and result.fault.kind == "rate_limit"
    assert shown[0] == "[retry] attempt 1/3: 429"


def test_pi_overflow_compaction_without_final_text() -> None:
    events = [
        {"type": "compaction_start", "reason": "overflow"},
        {"type": "agent_end", "messages": []},
    ]
    stdout = "".join(json.dumps(e) + "\n" for e in events).encode()
    result, _ = replay(PiAgent(), stdout)
    assert result.fault is not None and result.fault.kind == "overflow"
    assert result.failure == "pi ended without a final message"


# --- aider ----------------------------------------------------------------------------------

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
    assert result.final_text is None  # plain text: the output is scanned
    assert result.usage is not None
    assert (result.usage.input_tokens, result.usage.output_tokens) == (1860, 40)
    assert result.usage.cost_usd == pytest.approx(0.005)
    assert result.failure is None
    assert parse_signal(result.output_text, "", result.final_text) == "DONE"
    assert "Applied edit to hello.txt" in shown


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
