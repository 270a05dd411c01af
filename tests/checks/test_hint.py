"""checks/hint.py: what a person can do about a refusal points the right way."""

from __future__ import annotations

from pathlib import Path

from ralph.checks.hint import (
    ENVIRONMENT_HINT,
    HELD_SOURCE,
    SEALED_HINT,
    SOURCE_HINT,
    START_HINT,
    WORK_HINT,
    cannot_start,
    hint_for,
)
from ralph.checks.result import CheckResult, GateResult
from ralph.checks.sealed import NAME as SEALED_NAME
from ralph.store.environments import pkgsources
from ralph.store.environments.declared import read_declared

FINE = CheckResult("lint", "external", passed=True)
WORK = CheckResult("tests", "external", False, summary="exit code 1, expected 0", error="E")
MISSING = "`isodate` is declared by setup.cfg but not installed in the checks' environment"


def gate(*failed: CheckResult) -> GateResult:
    return GateResult(False, (*failed, FINE))


def test_failing_work_is_the_agent_s_to_fix_and_never_sends_a_person_to_the_front_matter() -> None:
    assert hint_for(gate(WORK)) == WORK_HINT
    assert "front matter" not in WORK_HINT


def test_a_command_that_cannot_start_points_at_the_front_matter() -> None:
    for summary in (
        "cannot start: working directory nope does not exist",
        "exit code 127, expected 0",
        "exit code 126, expected 0",
    ):
        bad = CheckResult("tests", "external", False, summary=summary)
        assert cannot_start(bad) and hint_for(gate(bad)) == START_HINT
        assert "front matter" in START_HINT
    # the control: a command that ran and failed (exit 1, 12, 1270) started
    for code in (1, 12, 1270):
        ran = CheckResult("tests", "external", False, summary=f"exit code {code}, expected 0")
        assert not cannot_start(ran) and hint_for(gate(ran)) == WORK_HINT


def test_a_declared_package_missing_from_the_environment_says_so_and_what_to_do() -> None:
    lacking = CheckResult("tests", "external", False, summary="exit code 1", not_installed=MISSING)
    hint = hint_for(gate(WORK, lacking))
    assert hint == f"{MISSING}: {ENVIRONMENT_HINT}"
    assert "npm install" in hint and "pip install" in hint and "front matter" not in hint


def test_a_package_source_held_for_a_person_points_at_ralph_accept(tmp_path: Path) -> None:
    """The line store/pkgsources writes for a source the agent added is the one the hint
    recognises; the person is sent to `ralph accept`, not to the agent alone."""
    pkgsources.begin(tmp_path)  # the person's sources: none
    (tmp_path / "requirements.txt").write_text("-f wheels\ncalcfix\n")  # the agent's
    why = pkgsources.why_held(tmp_path, read_declared(tmp_path).blocks())
    assert why is not None and why.startswith(HELD_SOURCE)
    held = CheckResult("environment", "environment", False, summary=f"cannot build: {why}")
    assert hint_for(gate(held)) == SOURCE_HINT and "ralph accept" in SOURCE_HINT
    # the control: an environment uv could not build is the work's to fix
    failed = CheckResult("environment", "environment", False, summary="cannot build: no-such")
    assert hint_for(gate(failed)) == WORK_HINT


def test_a_refusal_by_sealed_tests_says_how_sealed_tests_change() -> None:
    sealed_ = CheckResult(SEALED_NAME, "external", passed=False)
    assert hint_for(gate(sealed_)) == SEALED_HINT
    assert "front matter" not in SEALED_HINT and "ralph seal" in SEALED_HINT
    assert hint_for(gate(WORK, sealed_)) == SEALED_HINT  # it says "let the agent fix the work"
    cannot = CheckResult("tests", "external", False, summary="cannot start: no such directory")
    both = hint_for(gate(cannot, sealed_))
    assert "front matter" in both and "ralph seal" in both
