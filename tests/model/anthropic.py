"""The Anthropic Messages dialect (POST /v1/messages): Claude Code, pi, opencode, aider.

A streamed answer is message_start, then per content block its start, deltas (text_delta or
input_json_delta) and stop, then message_delta (stop reason, output tokens) and message_stop.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping
from typing import Any

from tests.model.reply import Reply, event, step_headers
from tests.model.script import Ask, Turn, pieces, tool_calls


def text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    return "\n".join(
        str(b.get("text", "")) for b in content or [] if isinstance(b, dict) and "text" in b
    )


def read(body: dict[str, Any], headers: Mapping[str, str]) -> Ask:
    messages = body.get("messages") or []
    first = text_of(messages[0].get("content")) if messages else ""
    session = headers.get("x-claude-code-session-id") or str(
        (body.get("metadata") or {}).get("user_id") or ""
    )
    system = text_of(body.get("system"))
    return Ask(
        conversation=session + "|" + hashlib.sha256(first.encode()).hexdigest(),
        user_text=first,
        turns=sum(1 for m in messages if m.get("role") == "assistant"),
        main=bool(body.get("tools")),
        context=system + "\n" + "\n".join(text_of(m.get("content")) for m in messages[:2]),
        model=str(body.get("model") or "claude-mock"),
        stream=bool(body.get("stream")),
    )


def error(err: dict[str, Any]) -> Reply:
    kind = err.get("type", "rate_limit_error")
    payload = {"type": "error", "error": {"type": kind, "message": err.get("message", "error")}}
    return Reply(int(err.get("status", 429)), payload, headers=step_headers(err))


def answer(turn: Turn, ask: Ask) -> Reply:
    step = turn.step
    blocks: list[dict[str, Any]] = []
    if step.get("text"):
        blocks.append({"type": "text", "text": step["text"]})
    calls = tool_calls(step, turn.cwd)
    blocks += [{"type": "tool_use", "id": i, "name": n, "input": v} for i, n, v in calls]
    blocks = blocks or [{"type": "text", "text": ""}]
    stop = step.get("stop_reason") or ("tool_use" if calls else "end_turn")
    usage = {
        "input_tokens": 100,
        "output_tokens": 20,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        **step.get("usage", {}),
    }
    message = {
        "id": f"msg_{uuid.uuid4().hex[:20]}",
        "type": "message",
        "role": "assistant",
        "model": ask.model,
        "content": blocks,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": usage,
    }
    if not ask.stream:
        return Reply(200, message, headers=step_headers(step))
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    events = [event("message_start", {"type": "message_start", "message": start})]
    for index, block in enumerate(blocks):
        events += _block(index, block)
    delta = {"stop_reason": stop, "stop_sequence": None}
    out = {"output_tokens": usage["output_tokens"]}
    events.append(event("message_delta", {"type": "message_delta", "delta": delta, "usage": out}))
    events.append(event("message_stop", {"type": "message_stop"}))
    return Reply(200, events=events, headers=step_headers(step))


def _block(index: int, block: dict[str, Any]) -> list[bytes]:
    opened: dict[str, Any]
    if block["type"] == "text":
        opened = {"type": "text", "text": ""}
        deltas = [{"type": "text_delta", "text": p} for p in pieces(block["text"])]
    else:  # a tool call's input arrives as pieces of its JSON
        opened = {**block, "input": {}}
        partial = pieces(json.dumps(block["input"]))
        deltas = [{"type": "input_json_delta", "partial_json": p} for p in partial]
    start = {"type": "content_block_start", "index": index, "content_block": opened}
    moved = [{"type": "content_block_delta", "index": index, "delta": d} for d in deltas]
    return [
        event("content_block_start", start),
        *(event("content_block_delta", m) for m in moved),
        event("content_block_stop", {"type": "content_block_stop", "index": index}),
    ]
