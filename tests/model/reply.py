"""What the server sends back: one JSON body, or a stream of server-sent events."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class Reply:
    status: int
    body: Any = None  # a JSON body, when the reply is not a stream
    events: list[bytes] = field(default_factory=list)  # server-sent events, in order
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def streamed(self) -> bool:
        return self.body is None


def event(name: str | None, data: Any) -> bytes:
    """One server-sent event; Gemini's carry no name."""
    head = f"event: {name}\n" if name else ""
    return f"{head}data: {json.dumps(data)}\n\n".encode()


def step_headers(step: dict[str, Any]) -> dict[str, str]:
    return {str(k): str(v) for k, v in (step.get("headers") or {}).items()}
