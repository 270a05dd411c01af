"""agents/opencode.py: opencode."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.agents.opencode import OpenCodeAgent
from ralph.agents.result import Usage
from tests.agent_helpers import command, fixture, replay, replay_fixture


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
