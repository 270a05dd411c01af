"""The common part of the structured-output parsers: JSON lines in, readable lines out.

Every CLI changes its event shapes now and then, so parsing is best-effort: an event that does
not have the expected shape is shown raw and skipped, never an error. The raw stream is kept in
the rotation's history log whatever happens here.
"""

from __future__ import annotations

import json
import time
from collections import deque
from collections.abc import Sequence
from typing import Any

from ralph.agents.faults import fault_from, fault_in_lines, one_line
from ralph.agents.output import MAX_LINE, OutputParser, bound_line
from ralph.agents.result import AgentFault, Outcome, Usage
from ralph.process.request import ProcessResult, StreamName

STDERR_KEPT = 40  # lines of stderr kept to explain a failure (each at most MAX_LINE)
SUMMARY_MAX = 160  # characters of a tool call's argument shown on its line


def obj(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one: missing fields read as absent."""
    return value if isinstance(value, dict) else {}


def text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def number(value: Any) -> float:
    if isinstance(value, bool):
        return 0.0
    return float(value) if isinstance(value, (int, float)) else 0.0


def tool_line(name: str, arguments: Any) -> str:
    """`[Tool] most telling argument`: one line per tool call."""
    args = obj(arguments)
    shown = ""
    for key in (
        "command",
        "cmd",
        "file_path",
        "filePath",
        "path",
        "pattern",
        "query",
        "url",
        "description",
        "prompt",
    ):
        value = args.get(key)
        if isinstance(value, list):
            value = " ".join(str(v) for v in value)
        if isinstance(value, str) and value.strip():
            shown = value
            break
    if not shown and args:
        shown = json.dumps(args, ensure_ascii=False)
    return f"[{name or 'tool'}] {one_line(shown, SUMMARY_MAX)}".rstrip()


class UsageCounter:
    """Tokens and cost summed over a rotation's turns."""

    def __init__(self) -> None:
        self.input = 0
        self.output = 0
        self.cost: float | None = None
        self.seen = False

    def add(self, input_tokens: float, output_tokens: float, cost: float | None = None) -> None:
        self.seen = True
        self.input += int(input_tokens)
        self.output += int(output_tokens)
        if cost is not None:
            self.cost = (self.cost or 0.0) + cost

    def usage(self) -> Usage | None:
        return Usage(self.input, self.output, self.cost) if self.seen else None


def usage_line(usage: Usage | None) -> str:
    if usage is None:
        return ""
    line = f"{usage.input_tokens:,} tokens in, {usage.output_tokens:,} out"
    if usage.cost_usd is not None:
        line += f", ${usage.cost_usd:.4f}"
    return line


class JsonLinesParser(OutputParser):
    """JSON events on stdout, free text on stderr. Subclasses implement `event` and `outcome`."""

    skip_prefixes: tuple[str, ...] = ()  # events not worth parsing (kept raw in history)
    # stderr lines that are the CLI's routine notices, never the reason it failed: shown in the
    # log, kept out of the error a failed rotation reports (where they hid the real cause)
    chatter: tuple[str, ...] = ()

    def __init__(self) -> None:
        self.stderr: deque[str] = deque(maxlen=STDERR_KEPT)
        self.stdout_text: deque[str] = deque(maxlen=STDERR_KEPT)  # non-JSON stdout lines
        self.events = 0
        self.exit_code: int | None = None

    def feed(self, stream: StreamName, lines: Sequence[str]) -> tuple[str, ...]:
        shown: list[str] = []
        for line in lines:
            stripped = line.strip()
            if not stripped:
                continue
            if stream == "stderr":
                if not (self.chatter and stripped.startswith(self.chatter)):
                    self.stderr.append(stripped[:MAX_LINE])
                shown.append(bound_line(stripped))
                continue
            event: Any = None
            if self.skip_prefixes and stripped.startswith(self.skip_prefixes):
                continue
            if stripped.startswith("{"):
                try:
                    event = json.loads(stripped)
                except ValueError:
                    event = None
            if isinstance(event, dict):
                self.events += 1
                try:
                    rendered = self.event(event)
                except (AttributeError, KeyError, TypeError, ValueError):
                    rendered = []  # a shape this CLI version did not have: shown raw
                    shown.append(bound_line(stripped))
                shown.extend(bound_line(r) for r in rendered if r.strip())
            else:
                self.stdout_text.append(stripped[:MAX_LINE])
                shown.append(bound_line(stripped))
        return tuple(shown)

    def event(self, event: dict[str, Any]) -> list[str]:
        raise NotImplementedError

    def finish(self, process: ProcessResult) -> Outcome:
        self.exit_code = process.exit_code
        return self.outcome(process, time.time())

    def outcome(self, process: ProcessResult, now: float) -> Outcome:
        raise NotImplementedError

    def error_lines(self) -> list[str]:
        """What the agent printed besides its events: where flag and start-up errors go."""
        return [*self.stderr, *self.stdout_text]

    def fault_or_stderr(
        self, message: str | None, now: float, **kwargs: Any
    ) -> tuple[AgentFault | None, str | None]:
        """The fault in an error message, else in stderr; and the error line to report."""
        fault = fault_from(message, now, **kwargs)
        if fault is None:
            fault = fault_in_lines(self.error_lines(), now)
        error = one_line(message) if message else None
        if error is None and fault is not None:
            error = fault.message
        if error is None and self.stderr and self.exit_code not in (0, None):
            # a crash's last words; after exit 0 the last stderr line is more likely a warning
            error = one_line(self.stderr[-1])
        return fault, error
