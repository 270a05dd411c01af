"""Gemini CLI: `gemini --output-format stream-json --yolo --skip-trust -p PROMPT`.

Final text: the assistant `message` deltas after the last tool event, joined (the result event
carries no text). Usage: `result.stats` (input and output tokens; no cost). Failure: a result
with `status: "error"` (`error.message`), stderr, and exit codes: 41 auth, 52 config, 55
untrusted folder; API errors exit with the HTTP status truncated to a byte (429 -> 173).
"""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from ralph.agents.builtin import BuiltinAgent, fits_argument, pointer_prompt
from ralph.agents.faults import fault_from, one_line
from ralph.agents.footprint import GOOGLE, Footprint
from ralph.agents.output import OutputParser
from ralph.agents.request import AgentRequest
from ralph.agents.result import FaultKind, Outcome
from ralph.agents.stream import JsonLinesParser, UsageCounter, number, obj, text, tool_line
from ralph.plugins.hookspecs import hookimpl
from ralph.process.request import ProcessResult
from ralph.rules.agents.agentfiles import AGENT_SCAFFOLDING

# Exit codes that say what went wrong by themselves (src + obs, see the reference).
_EXIT_KINDS: dict[int, FaultKind] = {41: "auth", 52: "auth", 55: "auth", 173: "rate_limit"}
# Gemini has no environment switch for auto-update and usage statistics, only settings: ralph
# gives it a system-defaults file, the lowest layer, which the user's own settings override.
SYSTEM_DEFAULTS = {
    "general": {"enableAutoUpdate": False, "enableAutoUpdateNotification": False},
    "privacy": {"usageStatisticsEnabled": False},
}
DEFAULTS_VAR = "GEMINI_CLI_SYSTEM_DEFAULTS_PATH"


class GeminiParser(JsonLinesParser):
    chatter = ("YOLO mode is enabled", "Security Warning: Skipping system defaults file")

    def __init__(self) -> None:
        super().__init__()
        self.final = ""  # assistant text since the last tool event
        self.pending = ""  # streamed text not shown yet (shown line by line)
        self.result: dict[str, Any] | None = None
        self.usage = UsageCounter()

    def event(self, event: dict[str, Any]) -> list[str]:
        kind = event.get("type")
        if kind == "message":
            if event.get("role") != "assistant":
                return []  # the user message is the prompt, echoed: never shown or scanned
            chunk = text(event.get("content"))
            self.final += chunk
            self.pending += chunk
            if "\n" not in self.pending:
                return []
            done, _, self.pending = self.pending.rpartition("\n")
            return done.split("\n")
        shown = self._flush()
        if kind == "init":
            shown.append(f"[gemini] model {text(event.get('model'))}".rstrip())
        elif kind == "tool_use":
            self.final = ""
            shown.append(tool_line(text(event.get("tool_name")), event.get("parameters")))
        elif kind == "tool_result":
            self.final = ""
            if event.get("status") == "error":
                message = text(obj(event.get("error")).get("message"))
                shown.append(f"[tool error] {one_line(message, 200)}")
        elif kind == "error":
            shown.append(f"[error] {text(event.get('message'))}")
        elif kind == "result":
            self.result = event
            stats = obj(event.get("stats"))
            tokens_in, tokens_out = _tokens(stats)
            if stats:
                self.usage.add(tokens_in, tokens_out)
            line = f"[result] {text(event.get('status')) or 'done'}"
            if stats:
                line += f", {int(tokens_in):,} tokens in, {int(tokens_out):,} out"
            shown.append(line)
        return shown

    def _flush(self) -> list[str]:
        pending, self.pending = self.pending, ""
        return [pending] if pending.strip() else []

    def outcome(self, process: ProcessResult, now: float) -> Outcome:
        usage = self.usage.usage()
        result = self.result or {}
        ok = result.get("status") == "success" and process.exit_code == 0
        if ok:
            return Outcome(self.final, usage)
        message = text(obj(result.get("error")).get("message")) or None
        code = process.exit_code
        kind = _EXIT_KINDS.get(code) if isinstance(code, int) else None
        fault = fault_from(message, now, kind=kind)
        if fault is None and kind is not None:
            fault = fault_from(message or "\n".join(self.error_lines()), now, kind=kind)
        extra_fault, error = self.fault_or_stderr(message, now)
        fault = fault or extra_fault
        if error is None and process.exit_code == 0:
            error = "Gemini CLI ended without a successful result"
        return Outcome(self.final, usage, fault, error)


def _tokens(stats: dict[str, Any]) -> tuple[float, float]:
    if "input_tokens" in stats or "output_tokens" in stats:
        return number(stats.get("input_tokens")), number(stats.get("output_tokens"))
    total_in = total_out = 0.0
    for model in obj(stats.get("models")).values():
        tokens = obj(obj(model).get("tokens"))
        total_in += number(tokens.get("prompt") or tokens.get("input"))
        total_out += number(tokens.get("candidates") or tokens.get("output"))
    return total_in, total_out


def _defaults_file() -> Path | None:
    """ralph's system-defaults file for Gemini, in ralph's cache folder; None where Gemini would
    skip it: it refuses a file below any folder others may write (a project or a HOME under
    /tmp), and says so in a warning that hid the real error of a failed start."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    folder = Path(cache) / "ralph"
    try:
        folder.mkdir(parents=True, exist_ok=True, mode=0o700)
        if os.name != "nt" and any(_open_to_others(p) for p in (folder, *folder.parents)):
            return None
        path = folder / "gemini-system-defaults.json"
        text = json.dumps(SYSTEM_DEFAULTS, indent=2) + "\n"
        if not path.is_file() or path.read_text(encoding="utf-8") != text:
            path.write_text(text, encoding="utf-8")
    except OSError:
        return None  # no cache folder: Gemini runs with its own defaults
    return path


def _open_to_others(folder: Path) -> bool:
    return bool(folder.stat().st_mode & (stat.S_IWGRP | stat.S_IWOTH))


class GeminiAgent(BuiltinAgent):
    key = "gemini"
    footprint = Footprint(
        scaffolding=AGENT_SCAFFOLDING["gemini"],
        hosts=(*GOOGLE, "cloudcode-pa.googleapis.com"),
        folders=(".gemini",),
        base_url_vars=("GOOGLE_GEMINI_BASE_URL",),
        key_vars=("GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"),
        credential_files=(".gemini/oauth_creds.json",),
        login_hint="run `gemini` once and log in, or set GEMINI_API_KEY",
    )
    default_vendor = "google"
    title = "Gemini CLI"
    executables = ("gemini",)
    install = "npm install -g @google/gemini-cli"
    env_defaults = {"GEMINI_TELEMETRY_ENABLED": "false"}  # noqa: RUF012 -- read-only

    def build_env(self, request: AgentRequest) -> dict[str, str]:
        env = super().build_env(request)
        if DEFAULTS_VAR not in env:  # a system-defaults file of the user's own wins
            path = _defaults_file()
            if path is not None:
                env[DEFAULTS_VAR] = str(path)
        return env

    def command_line(self, exe: str, prompt: str, prompt_file: Path) -> tuple[list[str], bool]:
        # The prompt is an argument; a longer one stays in its file for the agent to read. Not
        # stdin: Gemini reads it only if it arrives within 500 ms of its start, and its
        # stream-json echo of a huge prompt was seen cut short, without a result, on exit.
        fits = fits_argument(prompt)
        return [
            exe,
            "--output-format",
            "stream-json",
            "--yolo",
            "--skip-trust",  # else YOLO is downgraded in a folder never trusted interactively
            *(["-m", self.model] if self.model else []),
            *self.args,
            "-p",
            prompt if fits else pointer_prompt(prompt_file),
        ], False

    def parser(self) -> OutputParser:
        return GeminiParser()


@hookimpl
def ralph_agents() -> list[type[BuiltinAgent]]:
    return [GeminiAgent]
