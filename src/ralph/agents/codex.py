"""Codex CLI: `codex exec --json ... -`, the prompt on stdin.

Final text: the last `item.completed` whose item is an `agent_message` (`.item.text`). Usage:
`turn.completed.usage` (input tokens, cached ones included, and output tokens; Codex reports
no cost). Failure: `turn.failed.error.message` (also `error` events and `ERROR:` on stderr),
e.g. "You've hit your usage limit. ... try again at 1:00 PM." (local time, U+2019 apostrophe).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any

from ralph.agents.builtin import BuiltinAgent
from ralph.agents.faults import one_line
from ralph.agents.footprint import OPENAI, Footprint
from ralph.agents.output import OutputParser
from ralph.agents.result import Outcome
from ralph.agents.stream import JsonLinesParser, UsageCounter, number, obj, text, tool_line
from ralph.plugins.hookspecs import hookimpl
from ralph.process.request import ProcessResult
from ralph.rules.agents.agentfiles import AGENT_SCAFFOLDING


class CodexParser(JsonLinesParser):
    def __init__(self) -> None:
        super().__init__()
        self.final: str | None = None
        self.usage = UsageCounter()
        self.completed = False
        self.failed: str | None = None  # turn.failed's message
        self.last_error: str | None = None  # the last `error` event (retries included)

    def event(self, event: dict[str, Any]) -> list[str]:
        kind = event.get("type")
        if kind in ("item.started", "item.completed"):
            return self._item(obj(event.get("item")), started=kind == "item.started")
        if kind == "turn.completed":
            self.completed = True
            usage = obj(event.get("usage"))
            self.usage.add(number(usage.get("input_tokens")), number(usage.get("output_tokens")))
            return [
                f"[turn] {int(number(usage.get('input_tokens'))):,} tokens in, "
                f"{int(number(usage.get('output_tokens'))):,} out"
            ]
        if kind == "turn.failed":
            self.failed = text(obj(event.get("error")).get("message")) or "turn failed"
            return [f"[error] {self.failed}"]
        if kind == "error":
            self.last_error = text(event.get("message")) or None
            return [f"[error] {self.last_error or ''}"]
        return []

    def _item(self, item: dict[str, Any], *, started: bool) -> list[str]:
        kind = item.get("type")
        if kind == "command_execution":
            if started:
                return [tool_line("shell", {"command": item.get("command")})]
            code = item.get("exit_code")
            return [f"[shell] exit {code}"] if isinstance(code, int) and code != 0 else []
        if started:
            return []
        if kind == "agent_message":
            message = text(item.get("text"))
            if message.strip():
                self.final = message
                return [message]
            return []
        if kind == "file_change":
            changes = item.get("changes")
            paths = [text(obj(c).get("path")) for c in changes] if isinstance(changes, list) else []
            return [f"[edit] {one_line(', '.join(p for p in paths if p), 200)}"]
        if kind == "mcp_tool_call":
            return [f"[mcp] {text(item.get('server'))}/{text(item.get('tool'))}"]
        if kind == "web_search":
            return [tool_line("search", {"query": item.get("query")})]
        if kind == "error":
            return [f"[warning] {text(item.get('message'))}"]
        return []

    def outcome(self, process: ProcessResult, now: float) -> Outcome:
        usage = self.usage.usage()
        if self.completed and self.failed is None and process.exit_code == 0:
            return Outcome(self.final or "", usage)
        message = self.failed or self.last_error
        fault, error = self.fault_or_stderr(message, now)
        if error is None and process.exit_code == 0:
            error = "Codex ended without completing its turn"
        return Outcome(self.final or "", usage, fault, error)


# A custom provider names the variable holding its key: `env_key = "NAME"` in config.toml, or
# `-c 'model_providers.x={..., env_key="NAME"}'` / `-c model_providers.x.env_key=NAME`.
_ENV_KEY = re.compile(r"""env_key\s*=\s*["']?([A-Za-z_][A-Za-z0-9_]*)""")


class CodexAgent(BuiltinAgent):
    key = "codex"
    footprint = Footprint(
        scaffolding=AGENT_SCAFFOLDING["codex"],
        hosts=(*OPENAI, "chatgpt.com", "auth.openai.com"),
        folders=(".codex",),
        home_vars=("CODEX_HOME",),
        base_url_vars=("OPENAI_BASE_URL",),
        key_vars=("CODEX_API_KEY", "OPENAI_API_KEY"),
        credential_files=(".codex/auth.json",),
        login_hint="run `codex login`, or set OPENAI_API_KEY",
    )
    default_vendor = "openai"
    title = "Codex CLI"
    executables = ("codex",)
    install = "npm install -g @openai/codex"

    def command_line(self, exe: str, prompt: str, prompt_file: Path) -> tuple[list[str], bool]:
        return [
            exe,
            "exec",
            "--json",
            "--skip-git-repo-check",  # ralph may drive a folder that is not a git repository
            "--dangerously-bypass-approvals-and-sandbox",  # `--full-auto` is gone in 0.169
            "-c",
            "analytics.enabled=false",
            "-c",
            "check_for_update_on_startup=false",
            *(["-m", self.model] if self.model else []),
            *self.args,
            "-",  # the prompt is read from stdin: no argument limit
        ], True

    def parser(self) -> OutputParser:
        return CodexParser()

    def key_vars(self) -> tuple[str, ...]:
        """Codex's own key variables and those of the custom providers its arguments and its
        config.toml define: `ralph doctor` finds the login there, redaction the key."""
        home = self.extra_env.get("CODEX_HOME") or os.environ.get("CODEX_HOME")
        config = Path(home) / "config.toml" if home else Path.home() / ".codex" / "config.toml"
        try:
            text = config.read_text(encoding="utf-8", errors="replace")
        except OSError:
            text = ""
        named = _ENV_KEY.findall("\n".join((*self.args, text)))
        return tuple(dict.fromkeys((*super().key_vars(), *named)))


@hookimpl
def ralph_agents() -> list[type[BuiltinAgent]]:
    return [CodexAgent]
