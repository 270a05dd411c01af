"""aider: `aider --message-file .ralph/prompt.md --yes-always ...`: plain text, no JSON.

The signal is looked for in aider's own words on stdout: not in files it prints back (a file
the model rewrites, an edit block, always between code fences), nor in its status lines. Usage:
the lines
`Tokens: 2.1k sent, 28 received. Cost: $0.01 message, $0.05 session.`, summed over messages.
aider exits 0 even when the API call failed: its own error lines (`litellm.RateLimitError`,
"The API provider has rate limited you.", "has hit a token limit!", ...) are the failure,
unless a later answer shows it recovered.
"""

from __future__ import annotations

import re
from collections import deque
from collections.abc import Sequence
from pathlib import Path

from ralph.agents.builtin import BuiltinAgent
from ralph.agents.faults import fault_from
from ralph.agents.footprint import ANTHROPIC, OPENAI, Footprint
from ralph.agents.output import OutputParser, bound_line
from ralph.agents.result import AgentFault, FaultKind, Outcome
from ralph.agents.stream import UsageCounter
from ralph.plugins.hookspecs import hookimpl
from ralph.process.request import ProcessResult, StreamName
from ralph.rules.agents.agentfiles import AGENT_SCAFFOLDING

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
_FENCE = re.compile(r"^(`{3,}|~{3,})")
_STATUS = re.compile(r"^(?:Applied edit to |Tokens: |Aider v|Model: |Git repo: |Repo-map: )")
WORDS_KEPT = 200  # lines of aider's own words kept for the signal: the last one counts


def _count(value: str, suffix: str) -> float:
    return float(value.replace(",", "")) * _SCALE[suffix.lower()]


class AiderParser(OutputParser):
    def __init__(self) -> None:
        self.usage = UsageCounter()
        self.problem: tuple[FaultKind | None, str] | None = None  # the last error line
        self.fence: str | None = None  # the code fence open on stdout, if any
        self.words: deque[str] = deque(maxlen=WORDS_KEPT)  # aider's own lines, not files

    def _own_words(self, stripped: str) -> None:
        """Keep the line when it is aider's (the model's) own text, outside any code fence."""
        fence = _FENCE.match(stripped)
        if self.fence is not None:
            if fence and fence.group(1)[0] == self.fence[0] and stripped.strip("`~") == "":
                self.fence = None if len(fence.group(1)) >= len(self.fence) else self.fence
            return
        if fence:
            self.fence = fence.group(1)
        elif not _STATUS.match(stripped):
            self.words.append(stripped)

    def feed(self, stream: StreamName, lines: Sequence[str]) -> tuple[str, ...]:
        for line in lines:
            stripped = line.strip()
            if stream == "stdout":
                self._own_words(stripped)
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
        words = "\n".join(self.words)
        if self.problem is None:
            return Outcome(words, usage)
        kind, line = self.problem
        fault: AgentFault | None = fault_from(line, time.time(), kind=kind) if kind else None
        return Outcome(words, usage, fault, fault.message if fault else line)


class AiderAgent(BuiltinAgent):
    key = "aider"
    footprint = Footprint(
        scaffolding=AGENT_SCAFFOLDING["aider"],
        hosts=(*ANTHROPIC, *OPENAI),
        folders=(".aider", ".cache/aider"),
        key_vars=(
            "ANTHROPIC_API_KEY",
            "OPENAI_API_KEY",
            "OPENROUTER_API_KEY",
            "AIDERANTHROPIC_API_KEY",
        ),
        certain=False,  # keys may sit in .env or .aider.conf.yml
        login_hint="set ANTHROPIC_API_KEY or OPENAI_API_KEY (or put the key in .aider.conf.yml)",
    )
    title = "aider"
    executables = ("aider",)
    install = "python -m pip install aider-install && aider-install"
    env_defaults = {"AIDER_ANALYTICS": "false", "AIDER_CHECK_UPDATE": "false"}  # noqa: RUF012
    # Lines are kept whole like the JSON events of other CLIs: the signal ends aider's reply,
    # however long its last line.

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


@hookimpl
def ralph_agents() -> list[type[BuiltinAgent]]:
    return [AiderAgent]
