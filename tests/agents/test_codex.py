"""Codex CLI adapter: command line, --json parsing (recorded real output), faults."""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path

import pytest

from ralph.agents.codex import CodexAgent
from ralph.agents.registry import make_agent
from ralph.agents.result import Usage
from ralph.rules.text.signals import parse_signal
from tests.agent_helpers import fake_cli, fixture, replay, replay_fixture, request


def test_command_line_reads_the_prompt_from_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_cli(tmp_path / "bin", "codex", monkeypatch)
    agent = make_agent("codex", None, {}, "gpt-5-codex", ["-c", "model_reasoning_effort=high"])
    argv, stdin = agent.command(request(tmp_path))
    assert argv == (
        str(tmp_path / "bin" / "codex"),
        "exec",
        "--json",
        "--skip-git-repo-check",
        "--dangerously-bypass-approvals-and-sandbox",
        "-c",
        "analytics.enabled=false",
        "-c",
        "check_for_update_on_startup=false",
        "-m",
        "gpt-5-codex",
        "-c",
        "model_reasoning_effort=high",
        "-",
    )
    assert "--full-auto" not in argv  # an argument error since Codex 0.169
    assert stdin == tmp_path / "prompt.md"


def test_success_final_text_and_tokens() -> None:
    result, shown = replay(CodexAgent(), fixture("codex-write-done.stdout"))
    assert result.final_text == "Created hello.txt. <ralph>DONE</ralph>"
    assert result.usage == Usage(1334, 76, None)  # Codex reports no cost
    assert result.failure is None and result.fault is None
    assert shown[0].startswith("[warning] Model metadata for `gpt-mock` not found")
    assert "Creating the file." in shown
    assert any(line.startswith("[shell] /bin/bash -lc") for line in shown)
    assert shown[-1] == "[turn] 1,334 tokens in, 76 out"


def test_the_last_agent_message_is_the_final_text_not_earlier_ones() -> None:
    result, _ = replay(CodexAgent(), fixture("codex-write-done.stdout"))
    assert parse_signal(result.output_text, "", result.final_text) == "DONE"
    early = fixture("codex-write-done.stdout").replace(
        b"Creating the file.", b"Creating the file. <ralph>STUCK</ralph>"
    )
    result, _ = replay(CodexAgent(), early)
    assert parse_signal(result.output_text, "", result.final_text) == "DONE"


def test_usage_limit_is_a_rate_limit_with_the_local_reset_time() -> None:
    result = replay_fixture(CodexAgent(), "codex-usage-limit", exit_code=1)
    assert result.fault is not None
    assert result.fault.kind == "rate_limit"
    assert result.fault.message.startswith("You\u2019ve hit your usage limit.")
    # hours and minutes only: the end of that minute, never earlier than Codex meant
    assert result.fault.resets_at == datetime(2030, 1, 1, 0, 1).timestamp()
    assert result.fault.window == "usage"
    assert result.failure is not None and "usage limit" in result.failure


def test_a_codex_limit_that_lifts_within_the_minute_is_waited_for_not_given_up() -> None:
    """The recorded usage-limit output, its time moved into the current minute: parsed at
    6:24:30 it resets at 6:25:00, and the pool waits those 30 seconds (not 15 minutes, not
    exit 4)."""
    from ralph.agents.codex import CodexParser
    from ralph.agents.output import LineSplitter
    from ralph.process.request import ProcessResult, StreamName
    from ralph.rules.agents.pool import Pool, PoolPolicy, Wait, after_rotation, choose

    stdout = fixture("codex-usage-limit.stdout").replace(b"Jan 1st, 2030 12:00 AM", b"6:24 PM")
    assert b"try again at 6:24 PM" in stdout
    now = datetime(2026, 11, 22, 18, 24, 30).timestamp()
    parser = CodexParser()

    def feed(stream: StreamName, lines: tuple[str, ...]) -> None:
        parser.feed(stream, lines)

    splitter = LineSplitter(feed, 1 << 20)
    splitter.feed("stdout", stdout)
    splitter.close()
    process = ProcessResult(
        exit_code=1,
        stdout_tail=stdout,
        stderr_tail=b"",
        stdout_bytes=len(stdout),
        stderr_bytes=0,
        started=0.0,
        ended=1.0,
        timed_out=False,
        idle_timed_out=False,
        interrupted=False,
    )
    fault = parser.outcome(process, now).fault
    assert fault is not None and fault.resets_at == now + 30
    policy = PoolPolicy()
    pool = after_rotation(
        Pool.of(["codex"]),
        policy,
        "codex",
        "rate_limited",
        now,
        resets_at=fault.resets_at,
        short=fault.short,
    )
    choice = choose(pool, policy, now, review=False, avoid=None)
    assert isinstance(choice, Wait) and choice.until == now + 30


def test_401_is_an_auth_error() -> None:
    result = replay_fixture(CodexAgent(), "codex-auth-401", exit_code=1)
    assert result.fault is not None and result.fault.kind == "auth"
    assert "401 Unauthorized" in result.fault.message


def test_context_window_is_an_overflow() -> None:
    result = replay_fixture(CodexAgent(), "codex-overflow", exit_code=1)
    assert result.fault is not None and result.fault.kind == "overflow"


def test_a_retry_notice_that_recovered_is_no_fault() -> None:
    lines = fixture("codex-write-done.stdout").splitlines()
    retry = json.dumps({"type": "error", "message": "Reconnecting... 1/5 (429 Too Many Requests)"})
    stdout = b"\n".join([*lines[:3], retry.encode(), *lines[3:]]) + b"\n"
    result, shown = replay(CodexAgent(), stdout)
    assert result.fault is None and result.failure is None
    assert "[error] Reconnecting... 1/5 (429 Too Many Requests)" in shown


def test_stderr_error_without_events_is_classified() -> None:
    result, _ = replay(
        CodexAgent(),
        b"",
        b'Error finding codex home: CODEX_HOME points to "/nope", but that path does not exist\n',
        exit_code=1,
    )
    assert result.fault is not None and result.fault.kind == "auth"


def test_exit_0_without_a_completed_turn_is_a_failure() -> None:
    stdout = b"\n".join(fixture("codex-write-done.stdout").splitlines()[:4]) + b"\n"
    result, _ = replay(CodexAgent(), stdout, exit_code=0)
    assert result.failure == "Codex ended without completing its turn"
    assert result.final_text == "Creating the file."
