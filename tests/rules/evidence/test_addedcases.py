"""rules/evidence/addedcases.py: which test cases were added since the run began."""

from __future__ import annotations

from ralph.rules.evidence.addedcases import AddedCase, added_cases, beside_tests

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


def test_files_in_a_tests_folder_are_the_tests_own_code() -> None:
    assert beside_tests("tests/helpers.py")
    assert beside_tests("src/test/java/calc/Fixtures.java")
    assert beside_tests("pkg/testdata/input.json")
    assert not beside_tests("calc/__init__.py")
    assert not beside_tests("tests.py")  # a file, not a folder
