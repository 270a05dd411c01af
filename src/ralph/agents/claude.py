"""Claude Code: `claude -p --output-format stream-json --verbose`, the prompt on stdin.

Final text: the `result` event's `.result`. Usage: `result.usage` (all prompt tokens, cache
reads and writes included) and `result.total_cost_usd`; when the run is cut short before its
result event, the usage of the assistant messages seen so far. Limits: `rate_limit_event`
(`resetsAt`, epoch seconds) and the result text ("You've hit your session limit · resets
12:58pm (UTC)", "API Error: Request rejected (429)"); synthetic messages carry an `error` field.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from ralph.agents.builtin import BuiltinAgent
from ralph.agents.faults import fault_from, one_line
from ralph.agents.footprint import ANTHROPIC, Footprint
from ralph.agents.output import OutputParser
from ralph.agents.result import FaultKind, LimitInfo, Outcome, Usage, Window
from ralph.agents.stream import JsonLinesParser, UsageCounter, number, obj, text, tool_line
from ralph.agents.stream import usage_line as format_usage
from ralph.plugins.hookspecs import hookimpl
from ralph.process.request import ProcessResult
from ralph.rules.agents.agentfiles import AGENT_SCAFFOLDING

# The `error` field of a synthetic assistant message, where it decides the kind by itself.
_ERROR_KINDS: dict[str, FaultKind] = {
    "rate_limit": "rate_limit",
    "overloaded": "rate_limit",
    "authentication_failed": "auth",
    "billing_error": "auth",
}

# A rate_limit_event's rateLimitType, as the window ralph knows it by.
_WINDOWS: dict[str, Window] = {
    "five_hour": "session",
    "seven_day": "weekly",
    "seven_day_opus": "weekly",
    "seven_day_sonnet": "weekly",
    "overage": "usage",
}


class ClaudeParser(JsonLinesParser):
    def __init__(self) -> None:
        super().__init__()
        self.result: dict[str, Any] | None = None
        self.last_text: str | None = None
        self.error_kind: str | None = None  # from a synthetic message
        self.resets_at: float | None = None  # from a rejected rate_limit_event
        self.window: Window | None = None  # the rejected event's rateLimitType
        self.limits: dict[Window, LimitInfo] = {}  # every rate_limit_event, the last per window
        # Usage of the assistant messages, for a run that never reaches its result event.
        # One line per content block repeats the message's usage: count each message once.
        self.partial = UsageCounter()
        self._message_id: str | None = None
        self._message_usage: tuple[float, float] = (0.0, 0.0)

    def event(self, event: dict[str, Any]) -> list[str]:
        kind = event.get("type")
        if kind == "assistant":
            return self._assistant(event)
        if kind == "user":
            return self._tool_results(event)
        if kind == "rate_limit_event":
            info = obj(event.get("rate_limit_info"))
            window = _WINDOWS.get(text(info.get("rateLimitType")), "usage")
            if info.get("status") == "rejected" and number(info.get("resetsAt")) > 0:
                self.resets_at = number(info.get("resetsAt"))
                self.window = window
            self.limits[window] = _limit(window, info)
            status = text(info.get("status"))
            if status and status != "allowed":
                return [f"[rate limit] {status} ({text(info.get('rateLimitType')) or 'limit'})"]
            return []
        if kind == "system":
            if event.get("subtype") == "init":
                return [f"[claude] model {text(event.get('model'))}".rstrip()]
            if event.get("subtype") == "api_retry":
                return [
                    f"[retry] attempt {event.get('attempt')}/{event.get('max_retries')}: "
                    f"{event.get('error_status') or ''} {text(event.get('error'))}".rstrip()
                ]
            return []
        if kind == "result":
            self.result = event
            return [self._result_line(event)]
        return []

    def _assistant(self, event: dict[str, Any]) -> list[str]:
        message = obj(event.get("message"))
        if isinstance(event.get("error"), str):
            self.error_kind = event["error"]
        self._count(message)
        shown: list[str] = []
        content = message.get("content")
        for item in content if isinstance(content, list) else []:
            block = obj(item)
            if block.get("type") == "text" and text(block.get("text")).strip():
                self.last_text = text(block.get("text"))
                shown.append(self.last_text)
            elif block.get("type") == "tool_use":
                shown.append(tool_line(text(block.get("name")), block.get("input")))
        return shown

    def _count(self, message: dict[str, Any]) -> None:
        ident = text(message.get("id"))
        usage = obj(message.get("usage"))
        if not usage:
            return
        if ident != self._message_id and self._message_id is not None:
            self.partial.add(*self._message_usage)
        self._message_id = ident
        self._message_usage = (_prompt_tokens(usage), number(usage.get("output_tokens")))

    def _tool_results(self, event: dict[str, Any]) -> list[str]:
        content = obj(event.get("message")).get("content")
        shown = []
        for item in content if isinstance(content, list) else []:
            block = obj(item)
            if block.get("type") == "tool_result" and block.get("is_error"):
                body = block.get("content")
                if isinstance(body, list):
                    body = " ".join(text(obj(b).get("text")) for b in body)
                shown.append(f"[tool error] {one_line(text(body), 200)}")
        return shown

    def _result_line(self, event: dict[str, Any]) -> str:
        usage = format_usage(self._usage_of(event))
        state = "error" if event.get("is_error") else text(event.get("subtype")) or "done"
        turns = event.get("num_turns")
        parts = [f"[result] {state}"]
        if isinstance(turns, int):
            parts.append(f"{turns} turns")
        if usage:
            parts.append(usage)
        return ", ".join(parts)

    @staticmethod
    def _usage_of(event: dict[str, Any]) -> Usage:
        usage = obj(event.get("usage"))
        cost = event.get("total_cost_usd")
        return Usage(
            int(_prompt_tokens(usage)),
            int(number(usage.get("output_tokens"))),
            float(cost) if isinstance(cost, (int, float)) and not isinstance(cost, bool) else None,
        )

    def outcome(self, process: ProcessResult, now: float) -> Outcome:
        result = self.result
        if result is None:
            if self._message_id is not None:
                self.partial.add(*self._message_usage)
                self._message_id = None
            usage = self.partial.usage()
            fault, error = self.fault_or_stderr(None, now)
            if error is None and process.exit_code == 0:
                error = "Claude Code ended without a result event"
            return Outcome(self.last_text or "", usage, fault, error, tuple(self.limits.values()))
        final = text(result.get("result"))
        errors = result.get("errors")
        if not final and isinstance(errors, list):
            final = "; ".join(str(e) for e in errors)
        usage = self._usage_of(result)
        failed = bool(result.get("is_error")) or result.get("subtype") not in (None, "success")
        limits = tuple(self.limits.values())
        if not failed and process.exit_code == 0:
            return Outcome(final, usage, limits=limits)
        kind: FaultKind | None = _ERROR_KINDS.get(self.error_kind or "")
        if result.get("terminal_reason") == "prompt_too_long":
            kind = "overflow"
        if result.get("api_error_status") == 429 or self.resets_at is not None:
            kind = kind or "rate_limit"
        message = final or text(result.get("subtype")) or None
        fault = fault_from(message, now, kind=kind, resets_at=self.resets_at, window=self.window)
        if fault is None:
            fault, _ = self.fault_or_stderr(None, now)
        error = one_line(message) if message else (fault.message if fault else None)
        return Outcome(final, usage, fault, error, limits)


def _limit(window: Window, info: dict[str, Any]) -> LimitInfo:
    """A rate_limit_event's figures: `utilization` 0..1 (a percentage is read as one),
    `resetsAt` epoch seconds."""
    used = info.get("utilization")
    share = float(used) if isinstance(used, (int, float)) and not isinstance(used, bool) else None
    if share is not None and share > 1.0:
        share /= 100.0
    resets = number(info.get("resetsAt"))
    return LimitInfo(
        window, share, resets if resets > 0 else None, text(info.get("status")) or "allowed"
    )


def _prompt_tokens(usage: dict[str, Any]) -> float:
    return (
        number(usage.get("input_tokens"))
        + number(usage.get("cache_creation_input_tokens"))
        + number(usage.get("cache_read_input_tokens"))
    )


class ClaudeAgent(BuiltinAgent):
    key = "claude"
    footprint = Footprint(
        scaffolding=AGENT_SCAFFOLDING["claude"],
        hosts=(*ANTHROPIC, "console.anthropic.com", "claude.ai", "platform.claude.com"),
        folders=(".claude", ".cache/claude-cli-nodejs", ".local/state/claude"),
        files=(".claude.json", ".claude.json.backup"),
        home_vars=("CLAUDE_CONFIG_DIR",),
        base_url_vars=("ANTHROPIC_BASE_URL",),
        key_vars=("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN"),
        credential_files=(".claude/.credentials.json",),
        certain=sys.platform != "darwin",  # on macOS the login is in the keychain
        login_hint="run `claude` once and /login, or set ANTHROPIC_API_KEY",
    )
    default_vendor = "anthropic"
    title = "Claude Code"
    executables = ("claude",)
    install = "npm install -g @anthropic-ai/claude-code"
    env_defaults = {  # noqa: RUF012 -- read-only class data
        "DISABLE_AUTOUPDATER": "1",
        "DISABLE_TELEMETRY": "1",
        "DISABLE_ERROR_REPORTING": "1",
    }

    def command_line(self, exe: str, prompt: str, prompt_file: Path) -> tuple[list[str], bool]:
        # `-p` without a prompt argument reads the prompt from stdin: no argument limit.
        return [
            exe,
            "-p",
            "--output-format",
            "stream-json",
            "--verbose",  # stream-json requires it with -p
            "--dangerously-skip-permissions",
            *self.model_args(),
            *self.args,
        ], True

    def parser(self) -> OutputParser:
        return ClaudeParser()


@hookimpl
def ralph_agents() -> list[type[BuiltinAgent]]:
    return [ClaudeAgent]
