"""Cursor agent CLI: `cursor-agent -p --force --trust --output-format stream-json PROMPT`.

Not on npm or PyPI (its installer downloads from cursor.com), so this adapter follows Cursor's
documentation: final text in the `result` event's `.result`; usage in `result.usage` (camelCase,
newer builds; no cost); assistant messages and `tool_call` started/completed events between.
On failure it exits non-zero with the message on stderr, the stream may end without a result.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ralph.agents.builtin import BuiltinAgent, fits_argument, pointer_prompt
from ralph.agents.faults import one_line
from ralph.agents.footprint import Footprint
from ralph.agents.output import OutputParser
from ralph.agents.result import Outcome, Usage
from ralph.agents.stream import JsonLinesParser, number, obj, text, tool_line, usage_line
from ralph.plugins.hookspecs import hookimpl
from ralph.process.request import ProcessResult
from ralph.rules.agents.agentfiles import AGENT_SCAFFOLDING


class CursorParser(JsonLinesParser):
    def __init__(self) -> None:
        super().__init__()
        self.result: dict[str, Any] | None = None
        self.last_text: str | None = None

    def event(self, event: dict[str, Any]) -> list[str]:
        kind = event.get("type")
        if kind == "assistant":
            content = obj(event.get("message")).get("content")
            blocks = [obj(b) for b in content] if isinstance(content, list) else []
            said = "".join(text(b.get("text")) for b in blocks if b.get("type") == "text")
            if said.strip():
                self.last_text = said
                return [said]
            return []
        if kind == "tool_call" and event.get("subtype") == "started":
            # {"tool_call": {"writeToolCall": {"args": {...}}}}: one key names the tool
            for key, call in obj(event.get("tool_call")).items():
                name = key.removesuffix("ToolCall") or key
                return [tool_line(name, obj(call).get("args"))]
            return []
        if kind == "system" and event.get("subtype") == "init":
            return [f"[cursor] model {text(event.get('model'))}".rstrip()]
        if kind == "result":
            self.result = event
            state = "error" if event.get("is_error") else text(event.get("subtype")) or "done"
            usage = usage_line(self._usage())
            return [f"[result] {state}" + (f", {usage}" if usage else "")]
        return []

    def _usage(self) -> Usage | None:
        usage = obj((self.result or {}).get("usage"))
        if not usage:
            return None
        return Usage(
            int(
                number(usage.get("inputTokens"))
                + number(usage.get("cacheReadTokens"))
                + number(usage.get("cacheWriteTokens"))
            ),
            int(number(usage.get("outputTokens"))),
            None,
        )

    def outcome(self, process: ProcessResult, now: float) -> Outcome:
        result = self.result
        usage = self._usage()
        if result is not None and not result.get("is_error") and process.exit_code == 0:
            return Outcome(text(result.get("result")), usage)
        message = text((result or {}).get("result")) if result and result.get("is_error") else ""
        fault, error = self.fault_or_stderr(message or None, now)
        if error is None and process.exit_code == 0:
            error = "Cursor agent ended without a result event"
        final = text((result or {}).get("result")) or self.last_text or ""
        return Outcome(final, usage, fault, one_line(error) if error else None)


class CursorAgent(BuiltinAgent):
    key = "cursor"
    footprint = Footprint(
        scaffolding=AGENT_SCAFFOLDING["cursor"],
        hosts=("cursor.com", "*.cursor.com", "*.cursor.sh"),
        folders=(".cursor", ".config/cursor", ".local/share/cursor-agent"),
        key_vars=("CURSOR_API_KEY",),
        certain=False,
        login_hint="run `cursor-agent login`, or set CURSOR_API_KEY",
    )
    title = "Cursor agent"
    executables = ("cursor-agent",)
    install = "curl https://cursor.com/install -fsS | bash"

    def command_line(self, exe: str, prompt: str, prompt_file: Path) -> tuple[list[str], bool]:
        # The prompt is an argument only: a long one is left in its file for the agent to read.
        return [
            exe,
            "-p",
            "--force",  # allow every command not explicitly denied
            "--trust",  # trust the workspace without asking (headless)
            "--output-format",
            "stream-json",
            *self.model_args(),
            *self.args,
            prompt if fits_argument(prompt) else pointer_prompt(prompt_file),
        ], False

    def parser(self) -> OutputParser:
        return CursorParser()


@hookimpl
def ralph_agents() -> list[type[BuiltinAgent]]:
    return [CursorAgent]
