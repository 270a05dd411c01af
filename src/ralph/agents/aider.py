"""aider: `aider --message-file .ralph/prompt.md --yes-always ...`: plain text, no JSON.

The signal is looked for in stdout (echoes of the prompt removed). Usage: the lines
`Tokens: 2.1k sent, 28 received. Cost: $0.01 message, $0.05 session.`, summed over messages.
aider exits 0 even when the API call failed: its own error lines (`litellm.RateLimitError`,
"The API provider has rate limited you.", "has hit a token limit!", ...) are the failure,
unless a later answer shows it recovered.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from ralph.agents.builtin import BuiltinAgent
from ralph.agents.faults import fault_from
from ralph.agents.output import OutputParser, bound_line
from ralph.agents.result import AgentFault, FaultKind, Outcome
from ralph.agents.stream import UsageCounter
from ralph.process.request import ProcessResult, StreamName

_TOKENS = re.compile(
    r"^Tokens: (?P<sent>[\d.,]+)(?P<sk>[kKmM]?) sent(?:, [^,.]* cache \w+)*"
    r", (?P<recv>[\d.,]+)(?P<rk>[kKmM]?) received\."
    r"(?: Cost: \$(?P<cost>[\d.,]+) message)?"
)
# aider's own error lines; the model's reply is printed on stdout too, so nothing else counts.
_ERRORS: tuple[tuple[FaultKind | None, re.Pattern[str]], ...] = (
    ("rate_limit", re.compile(r"litellm\.RateLimitError|The API provider has rate limited you")),
    ("rate_limit", re.compile(r"The API provider's servers are down or overloaded")),
    (
        "auth",
        re.compile(
            r"litellm\.AuthenticationError|litellm\.PermissionDeniedError"
            r"|The API provider is not able to authenticate you|Insufficient credits with the API"
        ),
    ),
    ("overflow", re.compile(r"has hit a token limit!|litellm\.ContextWindowExceededError")),
    (None, re.compile(r"^litellm\.\w+Error: ")),
)
_SCALE = {"": 1, "k": 1_000, "m": 1_000_000}


def _count(value: str, suffix: str) -> float:
    return float(value.replace(",", "")) * _SCALE[suffix.lower()]


class AiderParser(OutputParser):
    def __init__(self) -> None:
        self.usage = UsageCounter()
        self.problem: tuple[FaultKind | None, str] | None = None  # the last error line

    def feed(self, stream: StreamName, lines: Sequence[str]) -> tuple[str, ...]:
        for line in lines:
            stripped = line.strip()
            tokens = _TOKENS.match(stripped)
            if tokens is not None:
                cost = tokens.group("cost")
                self.usage.add(
                    _count(tokens.group("sent"), tokens.group("sk")),
                    _count(tokens.group("recv"), tokens.group("rk")),
                    float(cost.replace(",", "")) if cost else None,
                )
                self.problem = None  # an answer arrived: what failed before was retried
                continue
            for kind, pattern in _ERRORS:
                if pattern.search(stripped):
                    if self.problem is None or self.problem[0] is None or kind is not None:
                        self.problem = (kind, stripped)
                    break
        return tuple(bound_line(line) for line in lines)

    def finish(self, process: ProcessResult) -> Outcome:
        import time

        usage = self.usage.usage()
        if self.problem is None:
            return Outcome(None, usage)
        kind, line = self.problem
        fault: AgentFault | None = fault_from(line, time.time(), kind=kind) if kind else None
        return Outcome(None, usage, fault, fault.message if fault else line)


class AiderAgent(BuiltinAgent):
    key = "aider"
    title = "aider"
    executables = ("aider",)
    install = "python -m pip install aider-install && aider-install"
    env_defaults = {"AIDER_ANALYTICS": "false", "AIDER_CHECK_UPDATE": "false"}  # noqa: RUF012
    max_event = 8000  # plain text: no event to keep whole

    def command_line(self, exe: str, prompt: str, prompt_file: Path) -> tuple[list[str], bool]:
        return [
            exe,
            "--yes-always",  # aider's permission prompts (create files, run commands)
            "--no-check-update",
            "--no-show-release-notes",
            "--analytics-disable",
            "--no-pretty",  # no colours or boxes in the log
            *self.model_args(),
            *self.args,
            "--message-file",  # no argument limit
            str(prompt_file),
        ], False

    def parser(self) -> OutputParser:
        return AiderParser()
