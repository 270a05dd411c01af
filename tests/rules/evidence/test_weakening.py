"""rules/evidence/weakening.py: were the tests weakened? The baseline tests against the tests now
(pure)."""

from __future__ import annotations

import pytest

from ralph.rules.evidence.weakening import weakened

PY = """\
import pytest
from calc import add


def test_add():
    assert add(2, 3) == 5


@pytest.mark.parametrize("a,b,c", [(1, 1, 2)])
def test_param(a, b, c):
    assert add(a, b) == c


class TestCalc:
    def test_neg(self):
        self.assertEqual(add(-1, -1), -2)
"""


JS = """\
describe("calc", () => {
  it("adds", () => {
    expect(add(2, 3))
      .toBe(5);
  });
  test("subs", () => { expect(sub(2, 1)).toBe(1) });
});
"""


# tape and node:test: `test(name, fn)` with `t.` assertions, in `test/` (the default globs)
TAPE = """\
const test = require('tape');
const { add } = require('../index.js');

test('adds', function (t) {
  t.equal(add(2, 3), 5);
  t.end();
});

test('adds zero', (t) => {
  t.equal(add(0, 0), 0);
  t.end();
});
"""


GO = """\
package calc

import "testing"

func TestAdd(t *testing.T) {
\tif Add(2, 3) != 5 {
\t\tt.Errorf("Add(2, 3) = %d", Add(2, 3))
\t}
}
"""


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


JAVA = """\
class CalcTest {
    @Test
    void adds() {
        assertEquals(5, Calc.add(2, 3));
    }
}
"""


RUBY = """\
describe Calc do
  it "adds" do
    expect(Calc.add(2, 3)).to eq(5)
  end
end
"""


SNAP = "exports[`calc adds 1`] = `5`;\n\nexports[`calc subs 1`] = `1`;\n"


def check(path: str, old: str, new: str) -> list[str]:
    return [str(f) for f in weakened({path: old}, {path: new})]


@pytest.mark.parametrize(
    ("path", "old", "change", "expected"),
    [
        ("t/test_c.py", PY, ("== 5", "== 6"), "test `test_add` changed: assertion `assert add"),
        ("t/test_c.py", PY, ("(1, 1, 2)", "(1, 1, 3)"), "test `test_param` changed: line"),
        ("t/test_c.py", PY, ("    assert add(2, 3) == 5\n", "    pass\n"), "test `test_add`"),
        ("t/test_c.py", PY, ("def test_add", "@pytest.mark.skip\ndef test_add"), "skip marker"),
        ("t/test_c.py", PY, ("def test_add():", "def helper():"), "`test_add` removed"),
        ("t/test_c.py", PY, ("self.assertEqual", "self.assertTrue"), "TestCalc.test_neg"),
        ("a.test.ts", JS, (".toBe(5)", ".toBe(6)"), "`adds` changed: assertion `.toBe(5);`"),
        ("a.test.ts", JS, ('it("adds"', 'it.skip("adds"'), "skip marker: `it.skip("),
        ("a.test.ts", JS, ('test("subs"', 'test.only("subs"'), "skip marker: `test.only("),
        ("test/a.js", TAPE, ("test('adds',", "test.skip('adds',"), "marker: `test.skip('adds'"),
        ("test/a.js", TAPE, ("test('adds',", "test('adds', { skip: true },"), "{ skip: true }"),
        ("test/a.js", TAPE, ("test('adds',", "test('adds', { todo: 'later' },"), "{ todo:"),
        ("test/a.js", TAPE, ("  t.equal(add(2", "  t.skip('later');\n  t.equal(add(2"), "t.skip("),
        ("test/a.js", TAPE, ("add(2, 3), 5", "add(2, 3), add(2, 3)"), "`t.equal(add(2, 3), 5);`"),
        ("test/a.js", TAPE, ("test('adds',", "xtest('adds',"), "marker: `xtest('adds'"),
        (
            "a.test.js",
            TAPE,
            ("test('adds',", "describe.skip('x', () => {});\ntest('adds',"),
            "skip",
        ),
        ("c_test.go", GO, ("\tif Add", "\tt.Skip()\n\tif Add"), "skip marker: `t.Skip()`"),
        ("c_test.go", GO, ("!= 5", "!= -1"), "`TestAdd` changed"),
        ("src/lib.rs", RUST, ("#[test]", "#[test]\n    #[ignore]"), "skip marker: `#[ignore]`"),
        ("src/lib.rs", RUST, ("3), 5)", "3), -1)"), "assertion `assert_eq!(add(2, 3), 5);`"),
        ("CalcTest.java", JAVA, ("@Test", "@Disabled\n    @Test"), "skip marker: `@Disabled`"),
        ("CalcTest.java", JAVA, ("assertEquals(5", "assertEquals(6"), "`adds` changed"),
        ("c_spec.rb", RUBY, ("eq(5)", "eq(6)"), "`adds` changed: assertion `expect("),
        ("c_spec.rb", RUBY, ('it "adds"', 'xit "adds"'), "skip marker"),
        ("a.snap", SNAP, ("`5`", "`6`"), "`calc adds 1` changed"),
    ],
)
def test_weakening_is_named(path: str, old: str, change: tuple[str, str], expected: str) -> None:
    new = old.replace(*change)
    assert new != old
    found = check(path, old, new)
    assert found and any(expected in f for f in found), found
    assert all(f.startswith(f"{path}: ") for f in found)


@pytest.mark.parametrize(
    ("path", "old", "new"),
    [
        ("t/test_c.py", PY, PY),
        ("t/test_c.py", PY, PY + "\n\ndef test_more():\n    assert add(0, 0) == 0\n"),
        ("t/test_c.py", PY, PY.replace("    assert", "        assert")),  # re-indented
        (
            "t/test_c.py",
            PY,
            PY.replace(
                "    assert add(2, 3) == 5",
                "    # sum\n    assert add(2, 3) == 5\n    assert add(3, 2) == 5",
            ),
        ),
        ("t/test_c.py", PY, "import os\n" + PY),  # a new import
        ("src/lib.rs", RUST, RUST.replace("a + b", "b + a")),  # the code under test
        ("src/lib.rs", RUST, RUST.replace("fn helper() -> i32 { 1 }", "")),  # not a test
        (
            "a.test.ts",
            JS,
            JS.replace("});\n", '  it("more", () => { expect(1).toBe(1) });\n});\n', 1),
        ),
    ],
)
def test_growing_and_refactoring_are_not_weakening(path: str, old: str, new: str) -> None:
    assert check(path, old, new) == []


def test_a_moved_or_renamed_file_is_not_weakening() -> None:
    assert weakened({"tests/test_a.py": PY}, {"tests/unit/test_b.py": PY}) == []
    # the cases moved into another file, with other cases beside them
    split = {"tests/test_x.py": PY + "\n\ndef test_new():\n    pass\n"}
    assert weakened({"tests/test_a.py": PY}, split) == []


def test_a_deleted_file_is_named() -> None:
    found = [str(f) for f in weakened({"tests/test_a.py": PY}, {})]
    assert "tests/test_a.py: test `test_add` removed (the file was deleted)" in found
    helper = [str(f) for f in weakened({"tests/conftest.py": "import os\n"}, {})]
    assert helper == ["tests/conftest.py: test file deleted"]


def test_a_helper_without_cases_keeps_its_lines() -> None:
    old = "def check(x):\n    assert x == 5\n"
    found = check("tests/conftest.py", old, "def check(x):\n    pass\n")
    assert found == ["tests/conftest.py: changed: assertion `assert x == 5` removed or changed"]
    assert check("tests/conftest.py", old, old + "\nX = 1\n") == []


def test_an_assertion_outside_the_cases_must_stay() -> None:
    old = "def check(x):\n    assert x == 5\n\n\ndef test_a():\n    check(5)\n"
    found = check("tests/test_a.py", old, old.replace("assert x == 5", "return"))
    assert found == [
        "tests/test_a.py: outside the test cases: assertion `assert x == 5` removed or changed"
    ]


def test_unreadable_python_is_compared_line_by_line() -> None:
    broken = PY + "\ndef (:\n"
    assert check("t/test_c.py", broken, broken.replace("== 5", "== 6"))


def test_an_added_js_skip_is_named_first() -> None:
    """`test('adds'` turned into `test.skip('adds'` changes the case's first line too: the
    skip is what a refusal's first line names. Control: a test added beside the person's,
    or a blank line taken out, is no weakening."""
    new = TAPE.replace("test('adds',", "test.skip('adds',")
    found = check("test/index.js", TAPE, new)
    assert found[0] == "test/index.js: adds a skip marker: `test.skip('adds', function (t) {`"
    grown = (
        TAPE + "\ntest('adds negatives', (t) => {\n  t.equal(add(-1, -1), -2);\n  t.end();\n});\n"
    )
    assert check("test/index.js", TAPE, grown) == []
    assert (
        check("test/index.js", TAPE, TAPE.replace("  t.end();\n});\n\n", "  t.end();\n});\n", 1))
        == []
    )
