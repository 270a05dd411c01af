"""pi: `pi -p --mode json PROMPT` (a long prompt is attached as `@FILE`). pi has no permission
prompts at all.

Final text: the text blocks of the last assistant `message_end`. Usage: each assistant
message's `usage` (input plus cache reads and writes, output, `cost.total` in USD), summed.
In json mode pi exits 0 even on errors: an assistant message with `stopReason: "error"` and
its `errorMessage` (e.g. `429 {"type":"error",...}`), or no final text, is the failure.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ralph.agents.builtin import BuiltinAgent, fits_argument
from ralph.agents.faults import fault_from
from ralph.agents.footprint import ANTHROPIC, GOOGLE, OPENAI, Footprint
from ralph.agents.output import OutputParser
from ralph.agents.result import Outcome
from ralph.agents.stream import JsonLinesParser, UsageCounter, number, obj, text, tool_line
from ralph.plugins.hookspecs import hookimpl
from ralph.process.request import ProcessResult
from ralph.rules.agents.agentfiles import AGENT_SCAFFOLDING

ATTACHED_PROMPT = (
    "Your instructions for this rotation are in the attached file: follow them exactly."
)


class PiParser(JsonLinesParser):
    # Every streamed token repeats the whole partial message: skipped unparsed (kept raw in
    # the history log), the complete message arrives in `message_end`.
    skip_prefixes = ('{"type":"message_update"',)

    def __init__(self) -> None:
        super().__init__()
        self.final = ""
        self.usage = UsageCounter()
        self.error: str | None = None  # errorMessage of the last assistant message
        self.overflow = False

    def event(self, event: dict[str, Any]) -> list[str]:
        kind = event.get("type")
        if kind == "message_end":
            message = obj(event.get("message"))
            if message.get("role") != "assistant":
                return []  # the user message is the prompt, echoed
            usage = obj(message.get("usage"))
            if usage:
                cost = obj(usage.get("cost")).get("total")
                self.usage.add(
                    number(usage.get("input"))
                    + number(usage.get("cacheRead"))
                    + number(usage.get("cacheWrite")),
                    number(usage.get("output")),
                    number(cost) if isinstance(cost, (int, float)) else None,
                )
            content = message.get("content")
            blocks = [obj(b) for b in content] if isinstance(content, list) else []
            said = "\n".join(text(b.get("text")) for b in blocks if b.get("type") == "text")
            if message.get("stopReason") == "error":
                self.error = text(message.get("errorMessage")) or "error"
                return [f"[error] {self.error}"]
            self.error = None
            if said.strip():
                self.final = said
                return [said]
            return []
        if kind == "tool_execution_start":
            return [tool_line(text(event.get("toolName")), event.get("args"))]
        if kind == "tool_execution_end" and event.get("isError"):
            return [f"[tool error] {text(event.get('toolName'))}"]
        if kind == "auto_retry_start":
            return [
                f"[retry] attempt {event.get('attempt')}/{event.get('maxAttempts')}: "
                f"{text(event.get('errorMessage'))}"
            ]
        if kind == "auto_retry_end" and not event.get("success"):
            self.error = text(event.get("finalError")) or self.error
            return []
        if kind in ("compaction_start", "auto_compaction_start"):
            if event.get("reason") == "overflow":
                self.overflow = True
            return [f"[compaction] {text(event.get('reason'))}".rstrip()]
        return []

    def outcome(self, process: ProcessResult, now: float) -> Outcome:
        usage = self.usage.usage()
        if self.error is None and self.final and process.exit_code == 0:
            return Outcome(self.final, usage)
        fault, error = self.fault_or_stderr(self.error, now)
        if fault is None and self.overflow:
            fault = fault_from("context overflow (pi compacted its context)", now, "overflow")
        if error is None:
            error = "pi ended without a final message"
        return Outcome(self.final, usage, fault, error)


class PiAgent(BuiltinAgent):
    key = "pi"
    footprint = Footprint(
        scaffolding=AGENT_SCAFFOLDING["pi"],
        hosts=(*ANTHROPIC, *OPENAI, *GOOGLE),
        folders=(".pi",),
        home_vars=("PI_CODING_AGENT_DIR",),
        key_vars=("ANTHROPIC_API_KEY", "ANTHROPIC_OAUTH_TOKEN", "OPENAI_API_KEY", "GEMINI_API_KEY"),
        credential_files=(".pi/agent/auth.json",),
        certain=False,  # ~/.pi/agent/models.json may carry a provider's key
        login_hint="run `pi` and /login, or set ANTHROPIC_API_KEY (or another provider's key)",
    )
    title = "pi"
    executables = ("pi",)
    install = "npm install -g @mariozechner/pi-coding-agent"
    env_defaults = {"PI_TELEMETRY": "0", "PI_SKIP_VERSION_CHECK": "1"}  # noqa: RUF012

    def command_line(self, exe: str, prompt: str, prompt_file: Path) -> tuple[list[str], bool]:
        fits = fits_argument(prompt)
        return [
            exe,
            "-p",
            "--mode",
            "json",
            *self.model_args(),  # a model id or provider/id
            *self.args,
            *([prompt] if fits else [f"@{prompt_file}", ATTACHED_PROMPT]),
        ], False

    def parser(self) -> OutputParser:
        return PiParser()


@hookimpl
def ralph_agents() -> list[type[BuiltinAgent]]:
    return [PiAgent]
