"""The OpenAI Responses dialect (POST .../responses): Codex CLI.

The history is a list of items; the model's own (function calls, reasoning, assistant messages)
come in runs, one run per model turn. A streamed answer is response.created, per output item
its added / text deltas / done events, then response.completed with the whole response; an
error `in_stream` is a 200 whose stream ends in response.failed.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping
from typing import Any

from tests.model.reply import Reply, event, step_headers
from tests.model.script import Ask, Turn, pieces, tool_calls

_MODEL_SIDE = {"function_call", "custom_tool_call", "local_shell_call", "reasoning"}


def _is_model(item: dict[str, Any]) -> bool:
    kind = item.get("type", "message")
    return kind in _MODEL_SIDE or (kind == "message" and item.get("role") == "assistant")


def _texts(item: dict[str, Any]) -> list[str]:
    content = item.get("content")
    if isinstance(content, str):
        return [content]
    return [str(c.get("text", "")) for c in content or [] if isinstance(c, dict)]


def read(body: dict[str, Any], headers: Mapping[str, str]) -> Ask:
    items = body.get("input") or []
    if isinstance(items, str):
        items = [{"type": "message", "role": "user", "content": items}]
    turns, in_run = 0, False
    for item in items:
        model = _is_model(item)
        turns += model and not in_run
        in_run = model
    users = [i for i in items if i.get("role") == "user"]
    session = (
        headers.get("session_id")
        or headers.get("session-id")
        or headers.get("conversation_id")
        or str(body.get("prompt_cache_key") or "")
    )
    first = json.dumps(users[0] if users else {}, sort_keys=True)
    texts = [str(body.get("instructions") or "")] + [t for i in items[:6] for t in _texts(i)]
    return Ask(
        conversation=session + "|" + hashlib.sha256(first.encode()).hexdigest(),
        user_text=json.dumps(users),
        turns=turns,
        main=bool(body.get("tools")),
        context="\n".join(texts),
        model=str(body.get("model") or "gpt-mock"),
        stream=bool(body.get("stream")),
    )


def error(err: dict[str, Any]) -> Reply:
    failure = {
        "type": err.get("type", "rate_limit_exceeded"),
        "code": err.get("code"),
        "message": err.get("message", "error"),
        **err.get("extra", {}),
    }
    if not err.get("in_stream"):
        return Reply(int(err.get("status", 429)), {"error": failure}, headers=step_headers(err))
    rid = f"resp_{uuid.uuid4().hex[:16]}"
    failed = {"id": rid, "status": "failed", "error": failure}
    events = [
        event("response.created", {"type": "response.created", "response": {"id": rid}}),
        event("response.failed", {"type": "response.failed", "response": failed}),
    ]
    return Reply(200, events=events, headers=step_headers(err))


def answer(turn: Turn, ask: Ask) -> Reply:
    step = turn.step
    output: list[dict[str, Any]] = []
    if step.get("text"):
        text = {"type": "output_text", "text": step["text"], "annotations": []}
        output.append(
            {
                "type": "message",
                "id": f"msg_{uuid.uuid4().hex[:16]}",
                "role": "assistant",
                "status": "completed",
                "content": [text],
            }
        )
    for call_id, name, value in tool_calls(step, turn.cwd):
        output.append(
            {
                "type": "function_call",
                "id": f"fc_{uuid.uuid4().hex[:16]}",
                "call_id": call_id,
                "status": "completed",
                "name": name,
                "arguments": json.dumps(value),
            }
        )
    used = {"input_tokens": 100, "output_tokens": 20, "cached_input_tokens": 0}
    used.update(step.get("usage", {}))
    usage = {
        "input_tokens": used["input_tokens"],
        "input_tokens_details": {"cached_tokens": used["cached_input_tokens"]},
        "output_tokens": used["output_tokens"],
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": used["input_tokens"] + used["output_tokens"],
    }
    rid = f"resp_{uuid.uuid4().hex[:16]}"
    whole = {
        "id": rid,
        "object": "response",
        "status": "completed",
        "model": ask.model,
        "output": output,
        "usage": usage,
    }
    if not ask.stream:
        return Reply(200, whole, headers=step_headers(step))
    begun: dict[str, Any] = {"id": rid, "object": "response", "status": "in_progress"}
    begun |= {"model": ask.model, "output": []}
    events = [event("response.created", {"type": "response.created", "response": begun})]
    for index, item in enumerate(output):
        events += _item(index, item)
    events.append(event("response.completed", {"type": "response.completed", "response": whole}))
    return Reply(200, events=events, headers=step_headers(step))


def _item(index: int, item: dict[str, Any]) -> list[bytes]:
    added = {**item, "content": [], "status": "in_progress"} if item["type"] == "message" else item
    out = [
        event(
            "response.output_item.added",
            {"type": "response.output_item.added", "output_index": index, "item": added},
        )
    ]
    if item["type"] == "message":
        for piece in pieces(item["content"][0]["text"]):
            delta = {
                "type": "response.output_text.delta",
                "item_id": item["id"],
                "output_index": index,
                "content_index": 0,
                "delta": piece,
            }
            out.append(event("response.output_text.delta", delta))
    done = {"type": "response.output_item.done", "output_index": index, "item": item}
    out.append(event("response.output_item.done", done))
    return out
