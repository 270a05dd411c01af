"""checks/sharedtests.py: one test command for several specs, said once when it refuses."""

from __future__ import annotations

from ralph.checks.result import CheckResult, GateResult
from ralph.checks.sharedtests import shared_tests
from ralph.specs.frontmatter import SpecMeta

FAILED = GateResult(False, (CheckResult("test_command", "external", False),))


def metas(*commands: tuple[str, str | None]) -> dict[tuple[str, str], tuple[SpecMeta, None]]:
    return {(path, "h"): (SpecMeta(test_command=command), None) for path, command in commands}


def test_a_shared_test_command_that_refused_is_said_once_per_spec() -> None:
    known = metas(("a", "pytest"), ("b", "pytest"), ("specs/other.md", "pytest -k other"))
    told: set[tuple[str, str]] = set()
    line = shared_tests("a", "pytest", FAILED, known, told)
    assert (
        line is not None and "also the test command of b:" in line and "specs/other.md" not in line
    )
    assert shared_tests("a", "pytest", FAILED, known, told) is None  # said already
    assert shared_tests("b", "pytest", FAILED, known, told) is not None  # b's own time


def test_nothing_is_said_when_the_command_is_its_own_or_did_not_refuse() -> None:
    known = metas(("a", "pytest"), ("b", "pytest -k b"))
    assert shared_tests("a", "pytest", FAILED, known, set()) is None  # no other spec has it
    shared = metas(("a", "pytest"), ("b", "pytest"))
    lint = GateResult(False, (CheckResult("lint", "external", False),))
    assert shared_tests("a", "pytest", lint, shared, set()) is None  # another check refused
    optional = GateResult(True, (CheckResult("test_command", "external", False, False),))
    assert shared_tests("a", "pytest", optional, shared, set()) is None
    assert shared_tests("a", None, FAILED, shared, set()) is None
