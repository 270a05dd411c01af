"""The revert check's pure rules: which test cases were added since the run began
(rules/addedcases.py), each one's outcome in a JUnit report (rules/junitcases.py), the verdict
(rules/revertverdict.py), and the test code that can rewrite a run's results
(rules/reporthooks.py)."""

from __future__ import annotations

from ralph.rules.addedcases import AddedCase, added_cases, beside_tests
from ralph.rules.junitcases import JCase, Outcome, outcomes
from ralph.rules.reporthooks import forging_names
from ralph.rules.revertverdict import NONE_ADDED, NOT_TESTED, verdict

OLD = "from calc import mean\n\n\ndef test_mean():\n    assert mean([1, 2, 3]) == 2\n"


def test_a_case_is_added_when_its_name_or_its_file_is_new() -> None:
    now = OLD + "\n\ndef test_two():\n    assert mean([2, 4]) == 3\n"
    found = added_cases(
        {"tests/test_calc.py": OLD},
        {
            "tests/test_calc.py": now,
            "tests/test_new.py": "class TestX:\n    def test_y(self):\n        pass\n",
        },
    )
    assert found == (
        AddedCase("tests/test_calc.py", "test_two"),
        AddedCase("tests/test_new.py", "TestX.test_y", new_file=True),
    )


def test_a_changed_case_counts_a_comment_does_not() -> None:
    changed = OLD.replace("== 2", "== 2.0")
    assert added_cases({"t/test_a.py": OLD}, {"t/test_a.py": changed}) == (
        AddedCase("t/test_a.py", "test_mean", changed=True),
    )
    commented = OLD.replace("    assert", "    # why\n    assert")
    assert added_cases({"t/test_a.py": OLD}, {"t/test_a.py": commented}) == ()


def test_other_languages_are_read_by_their_case_headers() -> None:
    old = 'it("adds", () => {\n  expect(add(1, 2)).toBe(3);\n});\n'
    now = old + 'it("multiplies", () => {\n  expect(mul(2, 3)).toBe(6);\n});\n'
    assert added_cases({"a.test.js": old}, {"a.test.js": now}) == (
        AddedCase("a.test.js", "multiplies"),
    )


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


def test_names_that_can_rewrite_results() -> None:
    hook = "@pytest.hookimpl(hookwrapper=True)\ndef pytest_runtest_makereport(item, call):\n"
    assert forging_names(hook) == ("pytest_runtest_makereport",)
    env = "import os\nos.environ['PYTEST_ADDOPTS']\nconfig.option.xmlpath\n"
    assert forging_names(env) == ("PYTEST_ADDOPTS", "xmlpath")
    assert forging_names("def pytest_configure(config):\n    pass\n") == ()


def test_files_in_a_tests_folder_are_the_tests_own_code() -> None:
    assert beside_tests("tests/helpers.py")
    assert beside_tests("src/test/java/calc/Fixtures.java")
    assert beside_tests("pkg/testdata/input.json")
    assert not beside_tests("calc/__init__.py")
    assert not beside_tests("tests.py")  # a file, not a folder
