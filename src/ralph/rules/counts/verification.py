"""The final, independent verification once every spec is at 3/3: the pure rules.

A verification passes only when all of these hold: the verifier ran and exited cleanly, its
last tag is VERIFY_PASS, it changed no tracked file (a verifier that edits has not verified the
tree the specs were verified on), and every test command ralph ran itself passed. Anything else
is a failure: every spec at 3/3 drops to 2/3 so it gets one more review with the verifier's
findings in its handoff, and a spec the verifier edited (a box unticked, a criterion added) is
"modified" and goes back to 0/3 by the re-scan rule.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Final, Protocol

from ralph.rules.counts.matrix import downgrade_verified
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import State

SLUG: Final = "final-verification"  # its handoff (the verifier's report) and history folder
SUBJECT: Final = ":final-verification"  # the breaker's subject for a failed verification
ALL_SPECS: Final = "(all specs)"  # the spec displays and the history show for a verification


class Commanded(Protocol):
    """A spec's front matter, as far as the verifier's prompt cares (`SpecMeta`)."""

    @property
    def own_commands(self) -> tuple[str, ...]: ...


@dataclass(frozen=True)
class Verdict:
    passed: bool
    reasons: tuple[str, ...]  # why it failed; empty when it passed

    @property
    def summary(self) -> str:
        return "passed" if self.passed else "; ".join(self.reasons)


def announced_commands(
    specs: Sequence[Spec],
    meta: Callable[[Spec], tuple[Commanded | None, str | None]],
    test_command: str | None,
) -> tuple[str, ...]:
    """The commands ralph will run itself, as the verifier's prompt lists them."""
    commands = [test_command] if test_command else []
    for spec in specs:
        found = meta(spec)[0]
        if found is not None:
            commands.extend(found.own_commands)
    return tuple(dict.fromkeys(commands))


def judge(
    tag: str | None,
    agent_failure: str | None,
    changed: Sequence[str],
    failed_checks: Sequence[str],
) -> Verdict:
    """Combine the verifier's answer with what ralph checked itself; a failing check always
    wins over a VERIFY_PASS."""
    reasons: list[str] = []
    if agent_failure is not None:
        reasons.append(f"the verifier failed ({agent_failure})")
    elif tag == "VERIFY_FAIL":
        reasons.append("the verifier answered VERIFY_FAIL")
    elif tag != "VERIFY_PASS":
        reasons.append(f"the verifier gave no verdict (last tag: {tag or 'none'})")
    if changed:
        shown = ", ".join(changed[:5]) + (" …" if len(changed) > 5 else "")
        reasons.append(f"the verifier changed {len(changed)} tracked file(s): {shown}")
    reasons.extend(failed_checks)
    return Verdict(not reasons, tuple(reasons))


def after_pass(state: State) -> State:
    return replace(state, final=replace(state.final, passed=True, failures=0, last_failure=None))


def after_failure(state: State, verdict: Verdict) -> tuple[State, tuple[str, ...]]:
    """One more consecutive failure; every verified spec needs another review."""
    state, dropped = downgrade_verified(state)
    final = replace(
        state.final, passed=False, failures=state.final.failures + 1, last_failure=verdict.summary
    )
    return replace(state, final=final), dropped
