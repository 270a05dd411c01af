"""The Google Gemini dialect (POST .../models/M:streamGenerateContent or :generateContent):
Gemini CLI. A streamed answer is bare `data:` events, here one holding the whole candidate."""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping
from typing import Any

from tests.model.reply import Reply, event, step_headers
from tests.model.script import Ask, Turn, tool_calls


def read(body: dict[str, Any], headers: Mapping[str, str], path: str) -> Ask:
    contents = body.get("contents") or []
    users = [c for c in contents if c.get("role") == "user"]
    declared = sum(len(t.get("functionDeclarations") or []) for t in body.get("tools") or [])
    session = headers.get("x-gemini-api-privileged-user-id") or ""
    first = json.dumps(users[0] if users else {}, sort_keys=True)
    # the context as text: JSON escapes its newlines, which the working-directory rule reads
    context = json.dumps([body.get("systemInstruction") or {}, contents[:2]]).replace("\\n", "\n")
    return Ask(
        conversation=session + "|" + hashlib.sha256(first.encode()).hexdigest(),
        user_text=json.dumps(users),
        turns=sum(1 for c in contents if c.get("role") == "model"),
        main=declared > 0,
        context=context,
        model=path.rpartition("/models/")[2].partition(":")[0] or "gemini-mock",
        stream=":streamGenerateContent" in path,
    )


def error(err: dict[str, Any]) -> Reply:
    status = int(err.get("status", 429))
    failure = {
        "code": status,
        "message": err.get("message", "error"),
        "status": err.get("type", "RESOURCE_EXHAUSTED"),
        **err.get("extra", {}),
    }
    return Reply(status, {"error": failure}, headers=step_headers(err))


def answer(turn: Turn, ask: Ask) -> Reply:
    step = turn.step
    parts: list[dict[str, Any]] = [{"text": step["text"]}] if step.get("text") else []
    parts += [{"functionCall": {"name": n, "args": v}} for _, n, v in tool_calls(step, turn.cwd)]
    used = {"input_tokens": 100, "output_tokens": 20, **step.get("usage", {})}
    chunk = {
        "candidates": [
            {"content": {"role": "model", "parts": parts}, "finishReason": "STOP", "index": 0}
        ],
        "usageMetadata": {
            "promptTokenCount": used["input_tokens"],
            "candidatesTokenCount": used["output_tokens"],
            "totalTokenCount": used["input_tokens"] + used["output_tokens"],
        },
        "modelVersion": ask.model,
        "responseId": uuid.uuid4().hex[:16],
    }
    if not ask.stream:
        return Reply(200, chunk, headers=step_headers(step))
    return Reply(200, events=[event(None, chunk)], headers=step_headers(step))
