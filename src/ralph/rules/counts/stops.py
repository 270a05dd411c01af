"""When the run stops, and why: what a committed outcome's signal and interruption mean for the
run (go on, or stop with an exit code and the reason its last line gives), and `ralph cancel`.
Both schedulers ask this one rule; what differs between them is only how they stop (lanes stop
the other lanes and end once the running rotations have; one spec at a time ends at once) and
the words for how many rotations were running (`lanes`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

# A member's name of `ralph.errors.ExitCode` (a rule imports nothing of ralph's but rules).
Code = Literal["INTERRUPTED", "NEEDS_HUMAN", "ERROR"]


@dataclass(frozen=True)
class Stop:
    code: Code
    reason: str  # the run's last line
    question: bool = False  # the agent asked: its question is kept and shown before the end


def cut_short(*, now: bool, lanes: bool) -> Stop:
    """Rotations stopped by Ctrl-C (or SIGTERM), or by `ralph cancel --now` (`now`): each is
    recorded as ERROR with its changes."""
    if now:
        who = (
            "the agents were stopped and the rotations"
            if lanes
            else "the agent was stopped and the rotation"
        )
        return Stop("INTERRUPTED", f"cancelled now (ralph cancel --now): {who} recorded as ERROR")
    which = "the lanes' rotations were" if lanes else "the rotation was"
    return Stop("INTERRUPTED", f"interrupted; {which} recorded as ERROR")


def cancelled(*, lanes: bool) -> Stop:
    """`ralph cancel`: the run ends once the running rotations have."""
    which = "the running rotations" if lanes else "the current rotation"
    return Stop("INTERRUPTED", f"cancelled (ralph cancel): stopped after {which}")


def after_outcome(
    spec: str, signal: str, interrupted: bool, halted: str | None = None, *, now: bool, lanes: bool
) -> Stop | None:
    """What a committed outcome of `spec` means for the run: None, it goes on (a breaker it
    opened, or a spec that does not converge, is then a person's call); else how it stops. A
    rotation cut short (`interrupted`; `now`: by `ralph cancel --now`) stops it, whatever its
    signal; so do checks that could not run for a reason nobody in the tree caused (`halted`:
    the package index cannot be reached), a QUESTION and a STUCK, for a person to answer or
    look."""
    if interrupted:
        return cut_short(now=now, lanes=lanes)
    if halted is not None:  # the checks could not run, nobody's fault in the tree
        return Stop("ERROR", halted)
    if signal == "QUESTION":
        return Stop(
            "NEEDS_HUMAN",
            f"the agent has a question on {spec} (.ralph/question.md): write your answer to "
            ".ralph/answer.md and run ralph again",
            question=True,
        )
    if signal == "STUCK":
        return Stop("NEEDS_HUMAN", f"the agent is stuck on {spec}")
    return None
