"""rules/evidence/revertverdict.py: the revert check's rule (pure)."""

from __future__ import annotations

from ralph.rules.evidence.addedcases import AddedCase
from ralph.rules.evidence.junitcases import Outcome
from ralph.rules.evidence.revertverdict import NONE_ADDED, NOT_TESTED, verdict


def test_the_verdict() -> None:
    a, b = AddedCase("t.py", "test_a"), AddedCase("t.py", "test_b")
    passed: dict[AddedCase, Outcome] = {a: "passed", b: "passed"}
    assert verdict([a, b], {a: "failed", b: "passed"}, passed) is None
    hollow = verdict([a, b], passed, passed)
    assert hollow is not None and hollow.startswith(NOT_TESTED) and "none of the 2" in hollow
    failing_now = verdict([a, b], {a: "failed"}, {a: "passed", b: "failed"})
    assert failing_now is not None and "t.py::test_b: failed" in failing_now
    skipped_now = verdict([a], {a: "failed"}, {a: "skipped"})
    assert skipped_now is not None and "do not pass now" in skipped_now
    # another spec's new case, which this command does not run, is no evidence either way
    assert verdict([a, b], {a: "failed"}, {a: "passed"}) is None
    not_run = verdict([a], {a: "failed"}, {})
    assert not_run is not None and "the command runs none of the test cases added" in not_run
    missing_old = verdict([a], {}, {a: "passed"})  # not run on the old code: proves nothing
    assert missing_old is not None and "none of the 1" in missing_old
    none = verdict([], {}, {})
    assert none is not None and none.startswith(NONE_ADDED)
