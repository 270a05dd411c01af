"""The scripted model server the real-CLI tests use (tests/model/): which step answers which
request, the three dialects' shapes, and the trap for every other host. In-process, quick."""

from __future__ import annotations

import http.client
import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.model.server import ModelServer

Start = Callable[[dict[str, Any], Path], ModelServer]
TOOLS = [{"name": "Write", "input_schema": {"type": "object"}}]


def post(server: ModelServer, path: str, body: dict[str, Any], **headers: str) -> tuple[int, str]:
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.request(
            "POST", path, json.dumps(body), {"Content-Type": "application/json", **headers}
        )
        reply = conn.getresponse()
        return reply.status, reply.read().decode()
    finally:
        conn.close()


def claude(server: ModelServer, first: str, turns: int = 0, **extra: Any) -> dict[str, Any]:
    """One non-streamed Messages request of a conversation that has had `turns` model turns."""
    messages: list[dict[str, Any]] = [{"role": "user", "content": first}]
    for _ in range(turns):
        messages += [{"role": "assistant", "content": "ok"}, {"role": "user", "content": "go"}]
    body = {"model": "claude-mock", "messages": messages, "tools": TOOLS, **extra}
    session = {"X-Claude-Code-Session-Id": str(abs(hash(first)))}
    status, text = post(server, "/v1/messages", body, **session)
    return {"status": status, **json.loads(text)}


def said(reply: dict[str, Any]) -> str:
    return "".join(b.get("text", "") for b in reply["content"])


@pytest.fixture
def started(mock_llm: Start, tmp_path: Path) -> Iterator[Callable[[dict[str, Any]], ModelServer]]:
    yield lambda script: mock_llm(script, tmp_path)


def test_conversations_walk_the_rotations_and_the_last_one_repeats(
    started: Callable[[dict[str, Any]], ModelServer],
) -> None:
    server = started({"rotations": [{"steps": [{"text": f"rotation {i}"}]} for i in range(2)]})
    assert [said(claude(server, f"agent {i}")) for i in range(3)] == [
        "rotation 0",
        "rotation 1",
        "rotation 1",
    ]


def test_a_retried_request_gets_the_same_step_and_the_next_turn_the_next_step(
    started: Callable[[dict[str, Any]], ModelServer],
) -> None:
    server = started({"steps": [{"text": "first"}, {"text": "second"}]})
    assert said(claude(server, "one agent")) == "first"
    assert said(claude(server, "one agent")) == "first"  # the client retried
    assert said(claude(server, "one agent", turns=1)) == "second"
    assert "exhausted" in said(claude(server, "one agent", turns=2))


def test_a_marker_in_the_prompt_chooses_its_rule_every_time(
    started: Callable[[dict[str, Any]], ModelServer],
) -> None:
    rules = [{"contains": "MARK-B", "steps": [{"text": "for b"}]}]
    server = started({"rotations": [], "prompt_rotations": rules, "exhausted_rotations": "error"})
    assert said(claude(server, "spec a, MARK-B")) == "for b"
    assert said(claude(server, "spec b again, MARK-B")) == "for b"
    refused = claude(server, "no marker")
    assert refused["status"] == 500 and "no rotation left" in refused["error"]["message"]


def test_an_error_holds_for_its_attempts_then_the_step_answers(
    started: Callable[[dict[str, Any]], ModelServer],
) -> None:
    error = {"status": 429, "type": "rate_limit_error", "message": "slow down"}
    server = started({"steps": [{"error": error, "error_times": 1, "text": "recovered"}]})
    first = claude(server, "agent")
    assert first["status"] == 429 and first["error"]["type"] == "rate_limit_error"
    assert said(claude(server, "agent")) == "recovered"


def test_a_request_without_tools_is_a_side_request_and_takes_no_rotation(
    started: Callable[[dict[str, Any]], ModelServer],
) -> None:
    server = started({"rotations": [{"steps": [{"text": "main"}]}], "side_text": "a title"})
    status, text = post(server, "/v1/messages", {"messages": [{"role": "user", "content": "t"}]})
    assert (status, said(json.loads(text))) == (200, "a title")
    assert said(claude(server, "agent")) == "main"


def test_a_tool_call_names_the_agents_working_directory(
    started: Callable[[dict[str, Any]], ModelServer],
) -> None:
    call = {"name": "Write", "input": {"file_path": "{cwd}/a.txt", "content": "x"}}
    server = started({"steps": [{"text": "writing", "tool_use": call}]})
    reply = claude(server, "Primary working directory: /work/here\nDo it.")
    assert reply["stop_reason"] == "tool_use"
    assert reply["content"][1]["input"] == {"file_path": "/work/here/a.txt", "content": "x"}


def test_a_streamed_answer_is_a_whole_message_in_events(
    started: Callable[[dict[str, Any]], ModelServer],
) -> None:
    text = "a long answer " * 10 + "<ralph>DONE</ralph>"
    server = started({"steps": [{"text": text, "usage": {"input_tokens": 7}}]})
    body = {"messages": [{"role": "user", "content": "go"}], "tools": TOOLS, "stream": True}
    status, raw = post(server, "/v1/messages", body)
    assert status == 200
    events = [
        (block.split("\n")[0].removeprefix("event: "), json.loads(block.split("data: ", 1)[1]))
        for block in raw.strip().split("\n\n")
    ]
    names = [name for name, _ in events]
    assert names[0] == "message_start" and names[-2:] == ["message_delta", "message_stop"]
    assert events[0][1]["message"]["usage"]["input_tokens"] == 7
    deltas = [data["delta"]["text"] for name, data in events if name == "content_block_delta"]
    assert len(deltas) > 1 and "".join(deltas) == text


def test_codex_and_gemini_get_their_own_shapes(
    started: Callable[[dict[str, Any]], ModelServer],
) -> None:
    server = started({"steps": [{"text": "hi <ralph>DONE</ralph>"}]})
    ask: dict[str, Any] = {"input": [{"role": "user", "content": "go"}]}
    ask["tools"] = [{"name": "shell"}]
    status, text = post(server, "/v1/responses", ask, session_id="s1")
    assert status == 200
    [message] = json.loads(text)["output"]
    assert message["content"][0]["text"] == "hi <ralph>DONE</ralph>"
    ask = {"contents": [{"role": "user", "parts": [{"text": "go"}]}]}
    ask["tools"] = [{"functionDeclarations": [{"name": "write_file"}]}]
    status, text = post(server, "/v1beta/models/gemini-x:generateContent", ask)
    assert status == 200
    [candidate] = json.loads(text)["candidates"]
    assert candidate["content"]["parts"] == [{"text": "hi <ralph>DONE</ralph>"}]
    assert json.loads(text)["modelVersion"] == "gemini-x"


def test_every_other_host_is_refused_and_recorded(
    started: Callable[[dict[str, Any]], ModelServer],
) -> None:
    server = started({"steps": []})
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.request("GET", "http://example.com/")  # as a client behind HTTP_PROXY asks
        assert conn.getresponse().status == 403
    finally:
        conn.close()
    conn = http.client.HTTPConnection("127.0.0.1", server.port, timeout=60)
    try:
        conn.request("CONNECT", "example.com:443")  # as a client behind HTTPS_PROXY asks
        assert conn.getresponse().status == 403
    finally:
        conn.close()
    assert [r["kind"] for r in server.requests()] == ["blocked_egress", "blocked_egress"]
    assert server.url.startswith("http://127.0.0.1:")
