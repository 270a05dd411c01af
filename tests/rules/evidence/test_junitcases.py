"""rules/evidence/junitcases.py: the outcome of each added test case, read from a JUnit XML report's
testcases (pure)."""

from __future__ import annotations

from ralph.rules.evidence.addedcases import AddedCase
from ralph.rules.evidence.junitcases import JCase, outcomes


def test_pytest_testcases_map_to_cases_by_module_class_and_function() -> None:
    top, method, other = (
        AddedCase("tests/test_calc.py", "test_two"),
        AddedCase("tests/test_calc.py", "TestC.test_m"),
        AddedCase("tests/test_other.py", "test_two"),
    )
    report = [
        JCase("tests.test_calc", "test_two", None, "passed"),
        JCase("tests.test_calc.TestC", "test_m[1]", None, "passed"),
        JCase("tests.test_calc.TestC", "test_m[2]", None, "failed"),  # one parameter fails
        JCase("test_other", "test_two", None, "skipped"),  # rootdir tests/: a suffix
    ]
    assert outcomes([top, method, other], report) == {
        top: "passed",
        method: "failed",
        other: "skipped",
    }
    assert outcomes([top], []) == {top: "missing"}
    # xunit1's file attribute tells apart two modules that would share a suffix
    wrong_file = [JCase("test_calc", "test_two", "other/test_calc.py", "passed")]
    assert outcomes([top], wrong_file) == {top: "missing"}


def test_a_file_pytest_could_not_collect_fails_its_cases() -> None:
    new = AddedCase("tests/test_new.py", "test_n", new_file=True)
    kept = AddedCase("tests/test_calc.py", "test_two")
    broken = JCase("", "tests.test_new", "tests/test_new.py", "failed")
    assert outcomes([new, kept], [broken]) == {new: "failed", kept: "missing"}
    assert outcomes([new], [JCase("", "tests.test_new", None, "failed")]) == {new: "failed"}


def test_other_runners_match_by_title() -> None:
    case = AddedCase("src/a.test.js", "multiplies")
    assert outcomes([case], [JCase("math", "math multiplies", None, "failed")]) == {case: "failed"}
    rust = AddedCase("tests/calc.rs", "adds_two")
    assert outcomes([rust], [JCase("calc", "tests::adds_two", None, "passed")]) == {rust: "passed"}
    assert outcomes([rust], [JCase("calc", "tests::adds_two_more", None, "passed")]) == {
        rust: "missing"
    }
