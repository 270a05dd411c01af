"""rules/testcases.py: a test file read as its test cases, assertions and skip markers, per
language (pure)."""

from __future__ import annotations

import pytest

from ralph.rules.testcases import read_tests
from tests.rules.test_weakening import GO, JAVA, JS, PY, RUBY, RUST, SNAP


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
