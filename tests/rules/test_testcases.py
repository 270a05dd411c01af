"""rules/testcases.py: a test file read as its test cases, assertions and skip markers, per
language (pure)."""

from __future__ import annotations

import pytest

from ralph.rules.testcases import read_tests

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


@pytest.mark.parametrize(
    ("path", "names"),
    [
        ("tests/test_calc.py", ["test_add", "test_param", "TestCalc.test_neg"]),
        ("src/calc.test.ts", ["adds", "subs"]),
        ("calc_test.go", ["TestAdd"]),
        ("src/lib.rs", ["adds"]),
        ("src/test/java/CalcTest.java", ["adds"]),
        ("spec/calc_spec.rb", ["adds"]),
        ("__snapshots__/calc.test.ts.snap", ["calc adds 1", "calc subs 1"]),
    ],
)
def test_cases_are_found_per_language(path: str, names: list[str]) -> None:
    text = {"py": PY, "ts": JS, "go": GO, "rs": RUST, "java": JAVA, "rb": RUBY, "snap": SNAP}
    found = read_tests(path, text[path.rsplit(".", 1)[1]])
    assert [c.name for c in found.cases] == names
