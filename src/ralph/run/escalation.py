"""Escalation to a human when the circuit breaker opens: Accept, Abort or Continue.

On a terminal ralph asks; headless (no terminal, or `CI` set) `--on-escalation` decides, so a CI
job never waits for an answer nobody can give. What each choice does to the state is a pure
function here; asking is the only I/O.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Final, Literal, TextIO

from ralph.rules.counts.breaker import Breaker
from ralph.rules.counts.lanebreakers import with_lane_breaker
from ralph.rules.counts.state import ACCEPTED, BYPASSED, MAX_COUNT, State
from ralph.rules.text.printable import printable
from ralph.rules.text.words import plural

Choice = Literal["accept", "abort", "continue"]
CHOICES: Final[tuple[Choice, ...]] = ("accept", "abort", "continue")
# How a rotation's failure is worded in the breaker's reasons (rules/counts/breaker.py writes them).
FAILURE_ON: Final = re.compile(r"rotation \d+ on (.+?): ")
MAX_ASKS: Final = 5  # unreadable answers before ralph takes the safe choice (abort)


@dataclass(frozen=True)
class Escalation:
    """What failed, for whom: `spec` is None when the final verification kept failing."""

    spec: str | None
    failures: int
    reasons: tuple[str, ...]
    cooldown_left: float  # seconds until the breaker would allow one more trial
    # why ralph asks: the circuit breaker opened, or a spec's REVIEWs keep changing files
    kind: Literal["breaker", "convergence"] = "breaker"
    lane: bool = False  # the breaker is `spec`'s lane's own (rules/counts/lanebreakers.py)

    @property
    def subject(self) -> str:
        return self.spec if self.spec is not None else "the final verification"

    @property
    def key(self) -> str:
        """The subject as the worklog records it."""
        return self.spec if self.spec is not None else "final-verification"


Decide = Callable[[Escalation], Choice]


def describe(e: Escalation) -> str:
    """The question ralph puts to the user: what kept failing, and the three choices. The
    subject and the reasons may quote names the agent chose: shown as escapes, never sent raw
    to the person's terminal (an OSC 52 would write their clipboard)."""
    spec = None if e.spec is None else printable(e.spec)
    e = replace(e, spec=spec, reasons=tuple(map(printable, e.reasons)))
    reasons = "\n".join(f"  - {r}" for r in e.reasons) or "  - (no details recorded)"
    if e.kind == "convergence":
        return (
            f"Not converging: {e.subject} keeps changing files in its REVIEW rotations:\n"
            f"{reasons}\n"
            "Choose:\n"
            f"  [1] Accept   - take the current state of {e.subject} as verified (user_accepted)\n"
            "  [2] Abort    - stop the run now, partial work kept (exit 5)\n"
            f"  [3] Continue - keep working on {e.subject} (asked again if it goes on)\n"
        )
    wait = (
        f" (or wait {e.cooldown_left:.0f} s and run again for one more trial)"
        if e.cooldown_left > 0
        else ""
    )
    return (
        f"Circuit breaker open: {plural(e.failures, 'failure')} in a row on {_named(e)}:\n"
        f"{reasons}\n"
        "Choose:\n"
        f"  [1] Accept   - take the current state of {e.subject} as verified (user_accepted)\n"
        f"  [2] Abort    - stop the run now, partial work kept (exit 5){wait}\n"
        f"  [3] Continue - go on without verification for {e.subject} (recorded as a risk)\n"
    )


def _named(e: Escalation) -> str:
    """What the header names: the subject, and every other spec the list of failures names (in
    a parallel run the failures in a row come from several lanes)."""
    named = [m.group(1) for r in e.reasons if (m := FAILURE_ON.match(r))]
    specs = list(dict.fromkeys(named))
    if not specs or specs == [e.subject]:
        return e.subject
    if e.subject not in specs:
        specs.append(e.subject)
    return f"{', '.join(specs)} (the last on {e.subject})"


def parse_choice(text: str) -> Choice | None:
    answer = text.strip().lower()
    for number, choice in enumerate(CHOICES, start=1):
        if answer in (str(number), choice, choice[:2]):
            return choice
    return None


def ask(e: Escalation, read: TextIO, write: TextIO) -> Choice:
    """Ask on a terminal until the answer is one of the choices; end of input means Abort."""
    write.write("\n" + describe(e))
    for _ in range(MAX_ASKS):
        write.write("Enter choice (1/2/3): ")
        write.flush()
        line = read.readline()
        if not line:  # end of input: nobody is there to answer
            write.write("\n")
            return "abort"
        choice = parse_choice(line)
        if choice is not None:
            return choice
        write.write(f"not a choice: {line.strip()!r}; type 1, 2 or 3\n")
    return "abort"


def apply_choice(state: State, e: Escalation, choice: Choice) -> State:
    """The state after the user's choice. Abort keeps the breaker open: a new run within its
    cooldown asks again. Accept and Continue are the human's resolution: the breaker closes."""
    if choice == "abort":
        return state
    if e.kind == "convergence":  # the breaker is not involved; Continue changes nothing
        row = state.get(e.spec) if e.spec is not None else None
        if choice == "accept" and row is not None:
            return state.with_spec(replace(row, done_count=MAX_COUNT, override=ACCEPTED))
        return state
    if e.lane and e.spec is not None:
        state = with_lane_breaker(state, e.spec, Breaker())
    else:
        state = replace(state, breaker=Breaker())
    if e.spec is None:
        final = (
            replace(state.final, accepted=True, failures=0)
            if choice == "accept"
            else replace(state.final, bypassed=True, failures=0)
        )
        return replace(state, final=final)
    row = state.get(e.spec)
    if row is None:  # the spec was removed meanwhile
        return state
    if choice == "accept":
        return state.with_spec(replace(row, done_count=MAX_COUNT, override=ACCEPTED))
    return state.with_spec(replace(row, override=BYPASSED))
