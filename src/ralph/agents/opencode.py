"""opencode: `opencode run --format json --auto PROMPT` (a long prompt goes to stdin).

Final text: the last `text` event's `.part.text`. Usage: each `step_finish` part's `tokens`
(input plus cache reads and writes, output) and `cost` (USD), summed. Failure: an `error`
event (`error.name`, `error.data.message`, `statusCode`, `responseHeaders["retry-after"]`),
exit code 1. opencode takes its working directory from $PWD, which ralph sets.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ralph.agents.builtin import BuiltinAgent, fits_argument
from ralph.agents.faults import fault_from, one_line
from ralph.agents.footprint import ANTHROPIC, OPENAI, Footprint
from ralph.agents.output import OutputParser
from ralph.agents.result import FaultKind, Outcome
from ralph.agents.stream import JsonLinesParser, UsageCounter, number, obj, text, tool_line
from ralph.plugins.hookspecs import hookimpl
from ralph.process.request import ProcessResult
from ralph.rules.agents.agentfiles import AGENT_SCAFFOLDING

# opencode appends piped stdin to the message; `-f FILE` would inline only its first 50 KB.
STDIN_PROMPT = "The instructions for this rotation follow, given on standard input: follow them."


class OpenCodeParser(JsonLinesParser):
    def __init__(self) -> None:
        super().__init__()
        self.final: str | None = None
        self.usage = UsageCounter()
        self.error: dict[str, Any] | None = None
        self.error_at: float | None = None  # when the error event arrived (for retry-after)

    def event(self, event: dict[str, Any]) -> list[str]:
        kind = event.get("type")
        part = obj(event.get("part"))
        if kind == "text":
            message = text(part.get("text"))
            if message.strip():
                self.final = message
                return [message]
            return []
        if kind == "tool_use":
            state = obj(part.get("state"))
            shown = [tool_line(text(part.get("tool")), state.get("input"))]
            if state.get("status") == "error":
                shown.append(f"[tool error] {one_line(text(state.get('error')), 200)}")
            return shown
        if kind == "step_finish":
            tokens = obj(part.get("tokens"))
            cache = obj(tokens.get("cache"))
            cost = part.get("cost")
            self.usage.add(
                number(tokens.get("input"))
                + number(cache.get("read"))
                + number(cache.get("write")),
                number(tokens.get("output")) + number(tokens.get("reasoning")),
                number(cost) if isinstance(cost, (int, float)) else None,
            )
            return []
        if kind == "error":
            import time

            self.error = obj(event.get("error"))
            self.error_at = time.time()
            data = obj(self.error.get("data"))
            return [f"[error] {text(self.error.get('name'))}: {text(data.get('message'))}"]
        return []

    def outcome(self, process: ProcessResult, now: float) -> Outcome:
        usage = self.usage.usage()
        if self.error is None and process.exit_code == 0:
            return Outcome(self.final or "", usage)
        error = self.error or {}
        data = obj(error.get("data"))
        message = text(data.get("message")) or text(error.get("name")) or None
        status = data.get("statusCode")
        name = text(error.get("name"))
        kind: FaultKind | None = None
        if status == 429:
            kind = "rate_limit"
        elif status in (401, 403) or "Auth" in name:
            kind = "auth"
        elif "ContextOverflow" in name:
            kind = "overflow"
        resets_at = None
        retry_after = obj(data.get("responseHeaders")).get("retry-after")
        if kind == "rate_limit" and isinstance(retry_after, str):
            try:
                resets_at = (self.error_at or now) + float(retry_after)
            except ValueError:
                resets_at = None
        fault = fault_from(message, now, kind=kind, resets_at=resets_at)
        other, line = self.fault_or_stderr(message, now)
        if line is None and process.exit_code == 0:
            line = "opencode reported an error"
        return Outcome(self.final or "", usage, fault or other, line)


class OpenCodeAgent(BuiltinAgent):
    key = "opencode"
    footprint = Footprint(
        scaffolding=AGENT_SCAFFOLDING["opencode"],
        hosts=(*ANTHROPIC, *OPENAI, "opencode.ai", "models.dev"),
        folders=(
            ".config/opencode",
            ".local/share/opencode",
            ".cache/opencode",
            ".local/state/opencode",
        ),
        key_vars=("ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"),
        credential_files=(".local/share/opencode/auth.json",),
        certain=False,  # providers configured in opencode.json carry their own keys
        login_hint="run `opencode auth login`, or set the provider's API key",
    )
    title = "opencode"
    executables = ("opencode",)
    install = "npm install -g opencode-ai"
    env_defaults = {  # noqa: RUF012 -- read-only class data
        "OPENCODE_DISABLE_AUTOUPDATE": "1",
        "OPENCODE_DISABLE_SHARE": "1",
    }

    def command_line(self, exe: str, prompt: str, prompt_file: Path) -> tuple[list[str], bool]:
        fits = fits_argument(prompt)
        return [
            exe,
            "run",
            "--format",
            "json",
            "--auto",  # approve permissions that are not explicitly denied
            *(["-m", self.model] if self.model else []),  # provider/model
            *self.args,
            "--",
            prompt if fits else STDIN_PROMPT,
        ], not fits

    def parser(self) -> OutputParser:
        return OpenCodeParser()


@hookimpl
def ralph_agents() -> list[type[BuiltinAgent]]:
    return [OpenCodeAgent]
