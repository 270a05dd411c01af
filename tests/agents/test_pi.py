"""agents/pi.py: the pi coding agent's command line and its output read back."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.agents.pi import PiAgent
from ralph.agents.result import Usage
from tests.agent_helpers import command, fixture, replay, replay_fixture


def test_pi_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv, stdin = command("pi", tmp_path, monkeypatch)
    assert argv == ["-p", "--mode", "json", "--model", "M1", "--extra", "do the work"]
    assert stdin is None


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
