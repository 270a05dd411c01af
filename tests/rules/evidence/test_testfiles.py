"""rules/evidence/testfiles.py: which files are tests."""

from __future__ import annotations

import json

import pytest

from ralph.rules.evidence.testfiles import DEFAULT_GLOBS, is_test, may_hold_tests, runner_globs

RUST = """\
pub fn add(a: i32, b: i32) -> i32 { a + b }

fn helper() -> i32 { 1 }

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn adds() {
        assert_eq!(add(2, 3), 5);
    }
}
"""


@pytest.mark.parametrize(
    ("path", "yes"),
    [
        ("tests/test_calc.py", True),
        ("calc_test.py", True),
        ("deep/down/conftest.py", True),
        ("src/calc.py", False),
        ("web/src/app.test.tsx", True),
        ("web/src/__tests__/app.js", True),
        ("web/src/__snapshots__/app.test.tsx.snap", True),
        # tape's and mocha's `test/` folder, and what `node --test` runs by default
        ("test/index.js", True),
        ("packages/a/test/helpers/setup.mjs", True),
        ("tests/calc.ts", True),
        ("test.js", True),
        ("test-calc.cjs", True),
        ("lib/calc-test.js", True),
        ("lib/calc_test.mjs", True),
        ("lib/calc.js", False),
        ("lib/latest.js", False),
        ("contest/calc.js", False),
        ("test/fixtures/data.json", False),
        ("pkg/calc_test.go", True),
        ("pkg/calc.go", False),
        ("crate/tests/it.rs", True),
        ("module/src/test/java/a/CalcTest.java", True),
        ("src/main/java/a/Calc.java", False),
        ("spec/calc_spec.rb", True),
        ("test/calc_test.rb", True),
        ("README.md", False),
    ],
)
def test_default_test_files(path: str, yes: bool) -> None:
    assert is_test(path) is yes


def test_given_globs_replace_the_defaults() -> None:
    assert is_test("checks/verify_calc.py", ["checks/**/*.py"])
    assert not is_test("tests/test_calc.py", ["checks/**/*.py"])
    assert is_test("a/b/x.spec.{js}", ["*.spec.{js}"]) is False  # braces are alternatives
    assert is_test("a/b/x.spec.js", ["*.spec.{js,ts}"])


def test_rust_sources_with_unit_tests_are_test_files() -> None:
    assert may_hold_tests("src/lib.rs", RUST)
    assert not may_hold_tests("src/lib.rs", "pub fn add() {}\n")


def test_unittest_discovers_test_star_py() -> None:
    assert is_test("tests/testmean.py", DEFAULT_GLOBS)
    assert is_test("tests/test_mean.py", DEFAULT_GLOBS)
    assert is_test("dist/tests/test_mean.py", DEFAULT_GLOBS)
    assert not is_test("calc/mean.py", DEFAULT_GLOBS)


def test_the_runners_settings_widen_the_globs() -> None:
    found = runner_globs(
        {
            "pytest.ini": "[pytest]\npython_files = check_*.py\n    verify*.py\n",
            "tox.ini": "[tox]\nenvlist = py311\n[pytest]\ntestpaths = suite/main.py other\n",
            "setup.cfg": "[tool:pytest]\npython_files = spec_*.py\n",
            "package.json": json.dumps(
                {"jest": {"testMatch": ["<rootDir>/checks/**/*.js", "**/?(*.)+(spec).[jt]s"]}}
            ),
        },
        {"tool": {"pytest": {"ini_options": {"python_files": ["it_*.py"]}}}},
    )
    assert found == (
        "check_*.py",
        "verify*.py",
        "suite/main.py",
        "spec_*.py",
        "checks/**/*.js",
        "it_*.py",
    )
    assert runner_globs({"pytest.ini": "not [ini", "package.json": "{", "tox.ini": ""}) == ()
