"""Which scripted step answers a request.

A script is a JSON object:

    {"rotations": [{"steps": [STEP, ...]}, ...],   # or {"steps": [...]}: one rotation
     "prompt_rotations": [{"contains": "MARK", "steps": [...]}],
     "exhausted_rotations": "repeat_last" | "error",
     "all_requests_main": false, "step_by": "history" | "count",
     "side_text": "OK", "exhausted_text": "..."}

One agent process holds one conversation (the session it names plus its first user message); a
conversation's first main request (one that offers tools) takes the next rotation, unless its
user messages contain a `prompt_rotations` marker, which takes that rule's steps every time.
Step i answers the request whose history already holds i model turns, so a client's retry of
one request gets the same step; `"step_by": "count"` counts the replies served instead (for
agents whose prompts carry example model turns). Requests without tools (titles, summaries)
get `side_text` unless `all_requests_main` is set.

A STEP: `text`, `tool_use` / `tool_uses` ({"name", "input"}; "{cwd}" in an input becomes the
agent's working directory), `usage`, `headers` (extra response headers), `stop_reason`, or an
`error` ({"status", "type", "message", "headers", "extra", "code", "in_stream"}), returned
for the first `error_times` attempts of that step, or always when that is absent.
"""

from __future__ import annotations

import re
import threading
from dataclasses import dataclass
from typing import Any

Step = dict[str, Any]

# Where each CLI names its working directory in what it sends: Claude Code, opencode, Codex,
# Gemini CLI (in that order).
_CWD = (
    re.compile(r"Primary working directory:\s*(\S+)"),
    re.compile(r"Working directory:\s*(\S+)"),
    re.compile(r"<cwd>\s*([^<\s]+)\s*</cwd>"),
    re.compile(r"Workspace Directories:\*\*\s*\n\s*-\s*(\S+)"),
)


@dataclass(frozen=True)
class Ask:
    """One request, whatever the dialect: what the script needs to choose its answer."""

    conversation: str  # the session the client names, and a digest of its first user message
    user_text: str  # every user message, where prompt_rotations markers are looked for
    turns: int  # model turns already in the history
    main: bool  # it offers tools: a turn of the agent's loop, not a side request
    context: str  # the text where the CLI names its working directory
    model: str
    stream: bool


@dataclass(frozen=True)
class Turn:
    """The step chosen for an Ask, and where it came from (for the record)."""

    step: Step
    rotation: int | None
    index: int | None
    cwd: str


class Script:
    def __init__(self, data: dict[str, Any], cwd: str) -> None:
        rotations = data.get("rotations")
        if rotations is None:  # the shorthand: one rotation
            rotations = [{"steps": data.get("steps", [])}]
        self._steps: list[list[Step]] = [list(r.get("steps", [])) for r in rotations]
        self._ordinary = len(self._steps)
        self._rules: list[tuple[str, int]] = []
        for rule in data.get("prompt_rotations") or []:
            self._rules.append((str(rule["contains"]), len(self._steps)))
            self._steps.append(list(rule.get("steps", [])))
        self._repeat_last = data.get("exhausted_rotations", "repeat_last") == "repeat_last"
        self._all_main = bool(data.get("all_requests_main", False))
        self._by_count = data.get("step_by", "history") == "count"
        self._side = str(data.get("side_text", "OK"))
        self._exhausted = str(data.get("exhausted_text", "(script exhausted) <ralph>DONE</ralph>"))
        self._cwd = cwd
        self._lock = threading.Lock()
        self._conversations: dict[str, int | None] = {}
        self._next = 0
        self._served: dict[int, int] = {}
        self._attempts: dict[tuple[int, int], int] = {}

    def turn(self, ask: Ask) -> Turn:
        cwd = working_directory(ask.context, self._cwd)
        if not ask.main and not self._all_main:
            side = {"text": self._side, "usage": {"input_tokens": 5, "output_tokens": 2}}
            return Turn(side, None, None, cwd)
        with self._lock:
            rotation = self._rotation(ask)
            if rotation is None:
                error = {"status": 500, "type": "api_error", "message": "script: no rotation left"}
                return Turn({"error": error}, None, None, cwd)
            index = self._served.get(rotation, 0) if self._by_count else ask.turns
            steps = self._steps[rotation]
            step = dict(steps[index]) if index < len(steps) else {"text": self._exhausted}
            if "error" in step:
                attempt = self._attempts.get((rotation, index), 0) + 1
                self._attempts[rotation, index] = attempt
                if "error_times" in step and attempt > int(step["error_times"]):
                    del step["error"]
            if "error" not in step:
                self._served[rotation] = self._served.get(rotation, 0) + 1
        return Turn(step, rotation, index, cwd)

    def _rotation(self, ask: Ask) -> int | None:
        if ask.conversation not in self._conversations:
            ruled = next((i for mark, i in self._rules if mark in ask.user_text), None)
            self._conversations[ask.conversation] = (
                ruled if ruled is not None else self._take_next()
            )
        return self._conversations[ask.conversation]

    def _take_next(self) -> int | None:
        index, self._next = self._next, self._next + 1
        if index < self._ordinary:
            return index
        return self._ordinary - 1 if self._repeat_last and self._ordinary else None


def working_directory(context: str, fallback: str) -> str:
    for pattern in _CWD:
        found = pattern.search(context)
        if found:
            return found.group(1)
    return fallback


def with_cwd(value: Any, cwd: str) -> Any:
    """A tool input with every "{cwd}" in its strings replaced by the working directory."""
    if isinstance(value, str):
        return value.replace("{cwd}", cwd)
    if isinstance(value, list):
        return [with_cwd(v, cwd) for v in value]
    if isinstance(value, dict):
        return {k: with_cwd(v, cwd) for k, v in value.items()}
    return {} if value is None else value


def tool_calls(step: Step, cwd: str) -> list[tuple[str, str, dict[str, Any]]]:
    """The step's tool calls as (call id, name, input), inputs with their {cwd} filled in."""
    import uuid

    calls = ([step["tool_use"]] if step.get("tool_use") else []) + list(step.get("tool_uses", []))
    return [
        (
            c.get("id") or f"call_{uuid.uuid4().hex[:16]}",
            c["name"],
            with_cwd(c.get("input", {}), cwd),
        )
        for c in calls
    ]


def pieces(text: str, size: int = 48) -> list[str]:
    """A text cut into the deltas of a stream (one empty delta for an empty text)."""
    return [text[i : i + size] for i in range(0, len(text), size)] or [""]
