"""The revert check's rule (pure): at least one of the test cases added since the run began
fails on the code as it was then, and every one of them passes now.

Only the added cases the check's command runs count: another spec's new tests, in files this
command does not run, are no evidence for or against this one (a case the command runs but
skips does count, and does not pass).

A case fails on the old code when its testcase failed or errored there, or its file could not
be collected there (it imports a name the old code does not have); a case that was skipped or
did not run proves nothing either way. Now, only a passed case passes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from ralph.rules.evidence.addedcases import AddedCase
from ralph.rules.evidence.junitcases import Outcome

NOT_TESTED = "the new tests do not test the change"
NONE_ADDED = "no test case was added since the run began"
NOT_RUN = f"{NOT_TESTED}: the command runs none of the test cases added since the run began"
SHOWN = 3  # cases named in a refusal
ADD_HINT = "add a test that fails without the change and passes with it"


def verdict(
    added: Sequence[AddedCase], old: Mapping[AddedCase, Outcome], now: Mapping[AddedCase, Outcome]
) -> str | None:
    """Why the DONE is refused, or None when the added cases test the change."""
    if not added:
        return f"{NONE_ADDED}; {ADD_HINT}"
    ran = [c for c in added if now.get(c, "missing") != "missing"]
    if not ran:
        named = ", ".join(str(c) for c in added[:SHOWN])
        return f"{NOT_RUN} ({named}); {ADD_HINT} where the command runs it"
    added = ran
    not_passing = [c for c in added if now.get(c) != "passed"]
    if not_passing:
        named = _named(not_passing, now)
        return (
            f"{NOT_TESTED}: {len(not_passing)} of the {len(added)} added test cases do not "
            f"pass now ({named}); make them pass"
        )
    if not any(old.get(c) == "failed" for c in added):
        named = _named(list(added), old)
        return (
            f"{NOT_TESTED}: none of the {len(added)} added test cases fails on the code as it "
            f"was when the run began ({named}); {ADD_HINT}"
        )
    return None


def _named(cases: Sequence[AddedCase], outcomes: Mapping[AddedCase, Outcome]) -> str:
    shown = [f"{c}: {outcomes.get(c, 'missing')}" for c in cases[:SHOWN]]
    more = f", and {len(cases) - SHOWN} more" if len(cases) > SHOWN else ""
    return ", ".join(shown) + more
