"""rules/counts/verification.py: the final, independent verification once every spec is at 3/3."""

from __future__ import annotations

from ralph.rules.counts.verification import judge

DONE = [{"signal": "DONE"}]


def test_a_pass_needs_the_tag_no_changes_and_every_command_passing() -> None:
    assert judge("VERIFY_PASS", None, (), []).passed


def test_a_failing_check_always_wins_over_verify_pass() -> None:
    verdict = judge("VERIFY_PASS", None, (), ["`make test` failed: exit code 2"])
    assert not verdict.passed
    assert verdict.reasons == ("`make test` failed: exit code 2",)


def test_no_verdict_a_crash_a_fail_or_an_edit_all_fail() -> None:
    assert "no verdict" in judge("DONE", None, (), []).summary
    assert "no verdict" in judge(None, None, (), []).summary
    assert "VERIFY_FAIL" in judge("VERIFY_FAIL", None, (), []).summary
    assert "failed (exit code 1)" in judge("VERIFY_PASS", "exit code 1", (), []).summary
    changed = judge("VERIFY_PASS", None, ("a.py", "b.py"), [])
    assert not changed.passed
    assert "changed 2 tracked file(s): a.py, b.py" in changed.summary
