"""rules/evidence/firsterror.py: a failed check's own first error line, on real runners' output."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.rules.evidence.firsterror import ERROR_CHARS, first_error, missing_module, with_error
from ralph.rules.text.printable import clean_text

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures"

# recorded output (tests/fixtures/errors/ of this rule, tests/fixtures/runners/ of the runners
# ralph reads counts from) -> the line a person and the agent read first
RECORDED = {
    "errors/pytest-missing-module.txt": "ModuleNotFoundError: No module named 'isodate'",
    "errors/pytest-assertion.txt": "FAILED tests/test_add.py::test_add - assert 3 == 4",
    "errors/unittest-failure.txt": "FAIL: test_add (test_u.T.test_add): AssertionError: 3 != 4",
    "errors/unittest-missing-and-failure.txt": "ModuleNotFoundError: No module named 'isodate'",
    "errors/node-test-missing-module.txt": "Error: Cannot find module 'timestring'",
    "errors/node-test-assertion.txt": (
        "not ok 1 - adds: Expected values to be strictly equal: 3 !== 4"
    ),
    # a diff of two strings: both values, not the diff cut after its third line
    "errors/node-test-string-diff.txt": (
        "not ok 1 - many: Expected values to be strictly equal: actual '3 cat', expected '3 cats'"
    ),
    "errors/node-test-deep-diff.txt": (
        "not ok 1 - deep: Expected values to be strictly deep-equal: + actual - expected "
        "{ a: 1, b: [ 1, + 2 - 3 ] }"
    ),
    "errors/node-cjs-missing-module.txt": "Error: Cannot find module 'timestring'",
    "errors/node-esm-missing-package.txt": (
        "Error [ERR_MODULE_NOT_FOUND]: Cannot find package 'timestring' imported from "
        "/tmp/rw-node3/t.mjs"
    ),
    "errors/python-chained-traceback.txt": (
        "ValueError: invalid literal for int() with base 10: 'x'"  # the root cause, first
    ),
    "runners/pytest-q-collect-error.txt": "ModuleNotFoundError: No module named 'nonexistent_mod'",
    "runners/pytest-q-x.txt": "FAILED tests/test_err.py::TestErr::test_raises - RuntimeError: boom",
    "runners/unittest-error.txt": (
        "ERROR: test_raises (test_err.TestErr.test_raises): RuntimeError: boom"
    ),
    "runners/jest-failed.txt": (
        "● calc \u203a is wrong: expect(received).toBe(expected) // Object.is equality"
    ),
    "runners/vitest-failed.txt": (
        "FAIL vt/calc.test.mjs > calc > is wrong: AssertionError: expected 4 to be 5 // "
        "Object.is equality"
    ),
    "runners/go-failed.txt": "--- FAIL: TestWrong (0.00s): calc_test.go:19: Add(2, 2) = 4, want 5",
    "runners/go-v-failed.txt": "--- FAIL: TestWrong (0.00s)",  # its message came before
    "runners/cargo-failed.txt": (
        "thread 'tests::wrong' (590) panicked at src/lib.rs:21:9: assertion `left == right` failed"
    ),
}

TAPE = """\
TAP version 13
# adds
ok 1 should be strictly equal
not ok 2 should be strictly equal
  ---
    operator: equal
    expected: 5
    actual:   4
    at: Test.<anonymous> (/p/test/calc.js:7:5)
    stack: |-
      Error: should be strictly equal
          at Test.assert [as _assert] (/p/node_modules/tape/lib/test.js:479:48)
  ...

1..2
# tests 2
# pass  1
# fail  1
"""

NODE_FILE_CRASH = """\
TAP version 13
# /p/test/a.test.js:1
# const x = ;
#           ^
# SyntaxError: Unexpected token ';'
# Subtest: /p/test/a.test.js
not ok 1 - /p/test/a.test.js
  ---
  failureType: 'testCodeFailure'
  error: 'test failed'
  code: 'ERR_TEST_FAILURE'
  ...
1..1
# fail 1
"""


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_the_first_error_of_recorded_runs(name: str) -> None:
    text = clean_text((FIXTURES / name).read_text(encoding="utf-8"))
    assert first_error(text) == RECORDED[name]


def test_tap_names_the_failing_test_with_what_its_yaml_says() -> None:
    assert first_error(TAPE) == "not ok 2 should be strictly equal: expected: 5, actual: 4"
    # node's "test failed" of a whole file says nothing: the file's stderr in comments does
    assert first_error(NODE_FILE_CRASH) == "SyntaxError: Unexpected token ';'"
    todo = "TAP version 13\nnot ok 1 later # TODO\nok 2 x\nerror: the build broke\n"
    assert first_error(todo) == "error: the build broke"  # a TODO is no failure


def test_a_plain_command_s_generic_error_or_its_last_line() -> None:
    assert first_error("building\nsh: 1: pytest: not found\n") == "sh: 1: pytest: not found"
    assert first_error("x\nerror: could not compile `calc`\ndone\n") == (
        "error: could not compile `calc`"
    )
    # npm's and make's wrappers are never the why; the last line the command said is
    wrapped = "checking\nthe dates do not parse\nnpm ERR! Test failed.\nmake: *** [test] Error 1\n"
    assert first_error(wrapped) == "the dates do not parse"
    assert first_error("") is None and first_error("\n  \n") is None


def test_the_line_is_bounded_and_on_one_line() -> None:
    long = "ValueError: " + "x" * 1000
    said = first_error(f"{long}\n")
    assert said is not None and len(said) <= ERROR_CHARS and said.endswith(" …")
    assert first_error("E   AssertionError:\tassert  1 == 2\n") == "AssertionError: assert 1 == 2"


def test_a_missing_module_names_its_package() -> None:
    assert missing_module("ModuleNotFoundError: No module named 'isodate'") == "isodate"
    assert missing_module("No module named 'ruamel.yaml'") == "ruamel"
    assert missing_module("Error: Cannot find module 'timestring'") == "timestring"
    assert missing_module("Cannot find module '@scope/pkg/sub' from 'a.js'") == "@scope/pkg"
    assert missing_module("Cannot find package 'lodash' imported from /p/t.mjs") == "lodash"
    assert missing_module("Cannot find module 'lodash/fp'") == "lodash"
    # the controls: a file of the project, a builtin, another error
    assert missing_module("Error: Cannot find module './calc'") is None
    assert missing_module("Cannot find module 'node:fs'") is None
    assert missing_module("AssertionError: 3 != 4") is None


def test_with_error_adds_the_line_only_when_there_is_one() -> None:
    assert with_error("exit code 1, expected 0", "E: x") == "exit code 1, expected 0; error: E: x"
    assert with_error("exit code 1, expected 0", None) == "exit code 1, expected 0"
