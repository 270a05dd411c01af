"""What one rotation of an agent produced: its process, final text, usage, fault or error."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from ralph.process.request import ProcessResult


@dataclass(frozen=True)
class Usage:
    """What one rotation cost, as far as the agent's output reports it."""

    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float | None = None  # None: the agent does not report a price


FaultKind = Literal["rate_limit", "auth", "overflow"]
# The window a rate limit belongs to: a plan's five-hour session, its week, a day's quota, a
# plan's usage of unknown length, or a short one (per-minute API limit, a busy server).
Window = Literal["session", "weekly", "daily", "usage", "short"]

STDERR_LINES = 5  # the last lines of a failed agent's stderr shown in its handoff
STDERR_LINE_CHARS = 300
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\x1b\][^\x07]*\x07")


@dataclass(frozen=True)
class LimitInfo:
    """What an agent's CLI said about one of its limits during a rotation: the window, how much
    of it is used (0..1, when said), when it resets (epoch seconds, when said), and its status
    (`allowed`, `allowed_warning`, `rejected`)."""

    window: Window
    utilization: float | None = None
    resets_at: float | None = None
    status: str = "allowed"


@dataclass(frozen=True)
class AgentFault:
    """A failure that is not the work's fault and must be handled its own way: a usage or rate
    limit (bench the agent until `resets_at`, epoch seconds, when known), an auth or
    configuration error (stop the run at once), a context overflow (ROTATE with a note)."""

    kind: FaultKind
    message: str  # the agent's own words, one line
    resets_at: float | None = None
    window: Window | None = None  # rate limits only

    @property
    def short(self) -> bool:
        """A per-minute limit or a busy server: retried within seconds, not waited out."""
        return self.kind == "rate_limit" and self.window == "short"


@dataclass(frozen=True)
class Outcome:
    """What an output parser read from a finished rotation."""

    final_text: str | None = None  # None: scan the plain output for the signal
    usage: Usage | None = None
    fault: AgentFault | None = None
    error: str | None = None
    limits: tuple[LimitInfo, ...] = ()


def limits_of(outcome: Outcome) -> tuple[LimitInfo, ...]:
    """The limits a rotation reported: the CLI's own figures, else what its rate-limit fault
    says (a window refused until its reset); a short limit is no window worth recording."""
    if outcome.limits:
        return outcome.limits
    fault = outcome.fault
    if fault is None or fault.kind != "rate_limit" or fault.window in (None, "short"):
        return ()
    assert fault.window is not None
    return (LimitInfo(fault.window, 1.0, fault.resets_at, "rejected"),)


@dataclass(frozen=True)
class AgentResult:
    process: ProcessResult
    final_text: str | None  # the agent's final message, where its output format reports one
    usage: Usage | None = None  # None: the agent reported nothing
    fault: AgentFault | None = None
    # The agent reported a failure of its own (an error result, a rate limit...), possibly with
    # exit code 0 (aider, pi --mode json): one line, in its own words.
    error: str | None = None
    limits: tuple[LimitInfo, ...] = ()  # what the CLI said about its limits (windows)

    @property
    def output_text(self) -> str:
        return self.process.stdout_tail.decode("utf-8", errors="replace")

    @property
    def failure(self) -> str | None:
        """Why the rotation failed, or None when the agent finished on its own without error."""
        p = self.process
        if p.interrupted:
            return "interrupted"
        if p.timed_out:
            return f"timed out after {p.elapsed:.0f} s"
        if p.idle_timed_out:
            return f"no output for too long (idle timeout), stopped after {p.elapsed:.0f} s"
        if p.exit_code != 0:
            why = f"exit code {p.exit_code}"
            said = self.error or next(reversed(self.stderr_lines()), None)
            return f"{why}: {said}" if said else why
        return self.error

    def stderr_lines(self, limit: int = STDERR_LINES) -> tuple[str, ...]:
        """The last non-blank lines the agent wrote on stderr (colours removed, long lines
        cut): in its own words, why it failed."""
        text = _ANSI.sub("", self.process.stderr_tail.decode("utf-8", errors="replace"))
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        return tuple(
            line if len(line) <= STDERR_LINE_CHARS else line[: STDERR_LINE_CHARS - 1] + "…"
            for line in lines[-limit:]
        )
