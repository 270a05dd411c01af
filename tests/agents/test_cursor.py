"""agents/cursor.py: cursor agent CLI."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ralph.agents.cursor import CursorAgent
from ralph.agents.result import Usage
from tests.agent_helpers import command, replay


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
