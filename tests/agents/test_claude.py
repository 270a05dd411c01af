"""Claude Code adapter: command line, stream-json parsing (recorded real output), faults."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.agents.claude import ClaudeAgent
from ralph.agents.registry import make_agent
from ralph.agents.result import Usage
from ralph.rules.text.signals import parse_signal
from tests.agent_helpers import fake_cli, fixture, replay, replay_fixture, request

RESET_2030 = 1893456000.0  # 2030-01-01 00:00 UTC, what the mock's subscription limit sends


def test_command_line_is_headless_bypassed_streaming_with_the_prompt_on_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_cli(tmp_path / "bin", "claude", monkeypatch)
    agent = make_agent("claude", None, {}, "sonnet", ["--max-turns", "40"])
    argv, stdin = agent.command(request(tmp_path))
    assert argv == (
        str(tmp_path / "bin" / "claude"),  # resolved to an absolute path
        "-p",
        "--output-format",
        "stream-json",
        "--verbose",
        "--dangerously-skip-permissions",
        "--model",
        "sonnet",
        "--max-turns",
        "40",
    )
    assert stdin == tmp_path / "prompt.md"  # no argument limit, whatever the prompt's size


def test_no_model_flag_unless_one_is_chosen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_cli(tmp_path / "bin", "claude", monkeypatch)
    argv, _ = ClaudeAgent().command(request(tmp_path))
    assert "--model" not in argv


def test_environment_turns_off_updates_and_telemetry_and_the_user_can_override(
    tmp_path: Path,
) -> None:
    env = ClaudeAgent(env={"DISABLE_TELEMETRY": "0"}).build_env(request(tmp_path))
    assert env["DISABLE_AUTOUPDATER"] == "1"
    assert env["DISABLE_ERROR_REPORTING"] == "1"
    assert env["DISABLE_TELEMETRY"] == "0"
    assert env["PWD"] == str(tmp_path)


def test_success_final_text_usage_and_cost_from_the_result_event() -> None:
    result, shown = replay(ClaudeAgent(), fixture("claude-write-done.stdout"))
    assert result.final_text == "Created hello.txt. <ralph>DONE</ralph>"
    assert result.usage is not None
    assert (result.usage.input_tokens, result.usage.output_tokens) == (1334, 76)
    assert result.usage.cost_usd == pytest.approx(0.00857)
    assert result.fault is None
    assert result.error is None
    assert result.failure is None
    # readable rendering: the assistant text and the tool call, one line each
    assert "I'll create the file." in shown
    assert "[Write] /root/.cache/ralph-e2e/scratch/hello.txt" in shown
    assert shown[-1].startswith("[result] success, 2 turns, 1,334 tokens in, 76 out, $0.0086")
    assert not any(line.startswith("{") for line in shown)  # no raw JSON in the rendering


def test_usage_counts_cache_reads_and_writes_as_prompt_tokens() -> None:
    event = {
        "type": "result",
        "subtype": "success",
        "is_error": False,
        "result": "ok",
        "total_cost_usd": 0.5,
        "usage": {
            "input_tokens": 10,
            "cache_creation_input_tokens": 200,
            "cache_read_input_tokens": 3000,
            "output_tokens": 7,
        },
    }
    result, _ = replay(ClaudeAgent(), json.dumps(event).encode() + b"\n")
    assert result.usage == Usage(3210, 7, 0.5)


def test_subscription_limit_is_a_rate_limit_with_the_event_reset_time() -> None:
    result = replay_fixture(ClaudeAgent(), "claude-subscription-limit", exit_code=1)
    assert result.fault is not None
    assert result.fault.kind == "rate_limit"
    assert result.fault.resets_at == RESET_2030
    assert result.fault.message == "You've hit your session limit · resets Jan 1, 2030, 12am (UTC)"
    assert result.failure == f"exit code 1: {result.fault.message}"


def test_reset_time_is_read_from_the_text_when_there_is_no_event() -> None:
    lines = [
        line
        for line in fixture("claude-subscription-limit.stdout").splitlines()
        if b"rate_limit_event" not in line
    ]
    result, _ = replay(ClaudeAgent(), b"\n".join(lines) + b"\n", exit_code=1)
    assert result.fault is not None
    # "resets Jan 1, 2030, 12am": the end of that minute
    assert (result.fault.kind, result.fault.resets_at) == ("rate_limit", RESET_2030 + 60)
    assert result.fault.window == "session"


def test_the_events_reset_time_wins_over_a_text_without_one() -> None:
    limit = {
        "type": "rate_limit_event",
        "rate_limit_info": {
            "status": "rejected",
            "resetsAt": 1800000000,
            "rateLimitType": "seven_day",
        },
    }
    allowed = {"type": "rate_limit_event", "rate_limit_info": {"status": "allowed", "resetsAt": 1}}
    result_event = {
        "type": "result",
        "subtype": "success",
        "is_error": True,
        "api_error_status": 429,
        "result": "You've hit your weekly limit",
    }
    events = [allowed, limit, result_event]
    stdout = "".join(json.dumps(e) + "\n" for e in events).encode()
    result, shown = replay(ClaudeAgent(), stdout, exit_code=1)
    assert result.fault is not None
    assert (result.fault.kind, result.fault.resets_at) == ("rate_limit", 1800000000.0)
    assert shown[0] == "[rate limit] rejected (seven_day)"


def test_api_429_is_a_rate_limit_without_a_reset_time() -> None:
    result = replay_fixture(ClaudeAgent(), "claude-api-429", exit_code=1)
    assert result.fault is not None
    assert (result.fault.kind, result.fault.resets_at) == ("rate_limit", None)
    assert result.fault.message.startswith("API Error: Request rejected (429)")


def test_invalid_api_key_is_an_auth_error() -> None:
    result = replay_fixture(ClaudeAgent(), "claude-auth-401", exit_code=1)
    assert result.fault is not None
    assert result.fault.kind == "auth"
    assert result.fault.message == "Invalid API key · Fix external API key"


def test_root_without_sandbox_is_an_auth_error_from_stderr() -> None:
    result = replay_fixture(ClaudeAgent(), "claude-root", exit_code=1)
    assert result.fault is not None
    assert result.fault.kind == "auth"
    assert "root/sudo privileges" in result.fault.message
    assert result.failure is not None and "root/sudo" in result.failure


def test_prompt_too_long_is_an_overflow() -> None:
    result = replay_fixture(ClaudeAgent(), "claude-prompt-too-long", exit_code=1)
    assert result.fault is not None
    assert result.fault.kind == "overflow"
    assert result.fault.message.startswith("Prompt is too long")


def test_a_crash_is_a_failure_without_a_fault() -> None:
    stdout = b"\n".join(fixture("claude-write-done.stdout").splitlines()[:3]) + b"\n"
    result, _ = replay(ClaudeAgent(), stdout, b"Segmentation fault\n", exit_code=139)
    assert result.fault is None
    assert result.failure == "exit code 139: Segmentation fault"
    assert result.final_text == "I'll create the file."  # never the raw output
    # the usage of what ran before the crash still counts
    assert result.usage is not None and result.usage.input_tokens == 100


def test_ending_without_a_result_event_is_a_failure_even_with_exit_0() -> None:
    stdout = b"\n".join(fixture("claude-write-done.stdout").splitlines()[:2]) + b"\n"
    result, _ = replay(ClaudeAgent(), stdout, exit_code=0)
    assert result.failure == "Claude Code ended without a result event"


def test_the_signal_comes_from_the_result_never_from_an_echoed_prompt_or_tool_result() -> None:
    prompt = "End with `<ralph>DONE</ralph>` when done.\n<ralph>DONE</ralph>"
    events = [
        {"type": "user", "message": {"role": "user", "content": prompt}},
        {
            "type": "user",
            "message": {
                "content": [{"type": "tool_result", "content": "cat says <ralph>DONE</ralph>"}]
            },
        },
        {"type": "assistant", "message": {"content": [{"type": "text", "text": "<ralph>DONE"}]}},
        {"type": "result", "subtype": "success", "is_error": False, "result": "more to do"},
    ]
    stdout = "".join(json.dumps(e) + "\n" for e in events).encode()
    failed_tool = {
        "type": "user",
        "message": {
            "content": [{"type": "tool_result", "is_error": True, "content": "No such file"}]
        },
    }
    stdout += json.dumps(failed_tool).encode() + b"\n"
    result, shown = replay(ClaudeAgent(), prompt.encode() + b"\n" + stdout)
    assert result.final_text == "more to do"
    assert "[tool error] No such file" in shown
    assert not any("cat says" in line for line in shown)  # tool output is not shown
    assert parse_signal(result.output_text, prompt, result.final_text) is None


def test_unknown_and_malformed_events_are_shown_not_fatal() -> None:
    stdout = (
        b'{"type":"assistant","message":"not an object"}\n'
        b"not json at all\n"
        b'{"type":"brand_new_event","x":1}\n' + fixture("claude-write-done.stdout")
    )
    result, shown = replay(ClaudeAgent(), stdout)
    assert result.final_text == "Created hello.txt. <ralph>DONE</ralph>"
    assert "not json at all" in shown


def test_a_huge_event_is_parsed_whole_and_shown_bounded() -> None:
    big = "x" * 3_000_000 + " <ralph>DONE</ralph>"
    event = {"type": "result", "subtype": "success", "is_error": False, "result": big}
    assistant = {"type": "assistant", "message": {"content": [{"type": "text", "text": big}]}}
    stdout = (json.dumps(assistant) + "\n" + json.dumps(event) + "\n").encode()
    result, shown = replay(ClaudeAgent(), stdout, chunk=65536)
    assert result.final_text == big
    assert max(len(line) for line in shown) <= 2002


def test_a_line_beyond_the_event_limit_is_cut_and_the_stream_goes_on() -> None:
    agent = ClaudeAgent()
    agent.max_event = 1000  # a small limit, same code path as the 16 MiB one
    endless = b'{"type":"assistant","message":{"content":[{"type":"text","text":"' + b"y" * 5000
    stdout = endless + b'"}]}}\n' + fixture("claude-write-done.stdout")
    result, shown = replay(agent, stdout, chunk=700)
    assert result.final_text == "Created hello.txt. <ralph>DONE</ralph>"
    assert sum(line.endswith(" …") and "yyy" in line for line in shown) == 1
    assert not any(line.startswith("yyy") for line in shown)  # the rest of it is skipped
