"""checks/gate.py: the DONE gate of a run."""

from __future__ import annotations


def test_a_refusal_by_sealed_tests_says_how_sealed_tests_change() -> None:
    from ralph.checks.gate import CHECK_HINT, SEALED_HINT, hint_for
    from ralph.checks.result import CheckResult, GateResult
    from ralph.checks.sealed import NAME

    sealed = CheckResult(NAME, "external", passed=False)
    command = CheckResult("tests", "external", passed=False)
    fine = CheckResult("lint", "external", passed=True)
    assert hint_for(GateResult(False, (sealed, fine))) == SEALED_HINT
    assert "front matter" not in SEALED_HINT and "ralph seal" in SEALED_HINT
    assert hint_for(GateResult(False, (command, fine))) == CHECK_HINT  # as ever
    both = hint_for(GateResult(False, (command, sealed)))
    assert "front matter" in both and "ralph seal" in both
