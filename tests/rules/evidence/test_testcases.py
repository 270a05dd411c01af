"""rules/evidence/testcases.py: a test file read as its test cases, assertions and skip markers, per
language (pure)."""

from __future__ import annotations

import pytest

from ralph.rules.evidence.testcases import read_tests
from tests.rules.evidence.test_weakening import GO, JAVA, JS, PY, RUBY, RUST, SNAP


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


def test_the_js_skip_markers_and_what_only_looks_like_one() -> None:
    """node:test's, tape's, mocha's, jest's and vitest's ways to skip a test are markers; a
    query's `skip`, a cursor's `.skip(10)`, a todo app's data or a test named "skip:" are
    not."""
    skips = [
        "test.skip('a', () => {",
        "describe.skip('s', () => {",
        "it.concurrent.only('a', async () => {",
        "xit('a', () => {",
        "test.todo('a')",
        "test('a', { skip: true }, (t) => {",
        "test('a', { skip: process.platform === 'win32' }, () => {",
        "await t.test('sub', { todo: 'later' }, () => {})",
        "  skip: true,",
        "  t.skip('not yet');",
        "  this.skip();",
    ]
    plain = [
        "test('a', () => {",
        "const q = { skip: 10, limit: 5 };",
        "const item = { todo: 'buy milk', only: 'once', done: true };",
        "rows = db.find().skip(10);",
        "it('has skip: in its name', () => {",
        "test('a', { skip: false }, () => {",
        "test('a', { timeout: 100 }, () => {",
    ]
    found = read_tests("test/a.js", "\n".join(skips + plain)).markers
    assert found == tuple(line.strip() for line in skips)
