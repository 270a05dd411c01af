"""The mutants of the mutation check (rules/mutants.py, rules/mutantplan.py): each one edit at a
node's offsets, every other byte as it was, each parses to other code, only on the lines asked,
and a deterministic choice spread over files and lines."""

from __future__ import annotations

import ast

import pytest

from ralph.rules.mutantplan import changed_lines, mutable, plan, spread
from ralph.rules.mutants import Mutant, changes_code, mutants

SOURCE = '''"""A module docstring is never mutated."""


def mean(xs, k=0):
    """Nor a function's."""
    if not xs or k > 1:
        return 0.0
    t = sum(xs) / len(xs)
    t += 1
    return t if xs[0] is not None and "é" in "é" else -1


def grade(n):
    while n >= 10:
        n = n // 2 % 7
    return n == 3 and f"{n * 2}" != "x"
'''
EVERY = set(range(1, 100))


def changes(lines: set[int] = EVERY, source: str = SOURCE) -> list[tuple[str, str]]:
    return [(m.before, m.after) for m in mutants("m.py", source, lines)]


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("k > 1", "k <= 1"),  # comparison
        ("n >= 10", "n < 10"),
        ("n == 3", "n != 3"),
        ("xs[0] is not None", "xs[0] is None"),
        ('"é" in "é"', '"é" not in "é"'),
        ("sum(xs) / len(xs)", "sum(xs) * len(xs)"),  # arithmetic
        ("n // 2", "n / 2"),
        ("n // 2 % 7", "n // 2 * 7"),
        ("t += 1", "t -= 1"),
        ("0", "1"),  # constants
        ("1", "0"),
        ("10", "11"),
        ("0.0", "1.0"),
        ('"x"', "'XXxXX'"),
        ("not xs", "xs"),  # boolean negation
        ("not xs or k > 1", "not (not xs or k > 1)"),
        ("not xs or k > 1", "not xs and k > 1"),
        ("n >= 10", "not (n >= 10)"),
        ("return 0.0", "return None"),  # return values
    ],
)
def test_each_operator_makes_its_change(before: str, after: str) -> None:
    assert (before, after) in changes()


def test_docstrings_and_f_strings_are_left_alone() -> None:
    found = changes()
    assert not any("docstring" in b or "Nor a" in b for b, _ in found)
    assert not any(b == "n * 2" for b, _ in found)  # inside an f-string: its text is not code


def test_every_mutant_parses_to_other_code_and_only_its_span_changes() -> None:
    found = mutants("m.py", SOURCE, EVERY)
    assert len(found) > 25
    for m in found:
        mutated = m.apply(SOURCE)
        assert changes_code(SOURCE, m), m
        ast.parse(mutated)
        # byte-identical outside the edit
        assert mutated[: m.start] == SOURCE[: m.start]
        assert mutated[m.start + len(m.text) :] == SOURCE[m.end :]
        assert SOURCE.count("\n", 0, m.start) + 1 == m.line


def test_only_the_lines_asked_are_mutated() -> None:
    found = mutants("m.py", SOURCE, {8})
    assert found and {m.line for m in found} == {8}
    assert [(m.before, m.after) for m in found] == [("sum(xs) / len(xs)", "sum(xs) * len(xs)")]


def test_offsets_hold_after_non_ascii_text_on_the_line() -> None:
    # ast counts UTF-8 bytes, the edit counts characters: "é" is two bytes, one character
    source = 'x = "éé" if a else b + 1\n'
    found = {(m.before, m.after): m for m in mutants("m.py", source, {1})}
    m = found[("b + 1", "b - 1")]
    assert m.apply(source) == 'x = "éé" if a else b - 1\n'


def test_a_constant_without_a_literal_form_is_left_alone() -> None:
    assert [(m.before, m.after) for m in mutants("m.py", "x = 1e999\n", {1})] == []


def test_a_file_that_does_not_parse_or_cannot_be_read_has_no_mutant() -> None:
    assert mutants("m.py", "def f(:\n", EVERY) == []
    deep = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"  # nesting the parser refuses
    assert mutants("m.py", deep, EVERY) == []
    sums = "x = " + " + ".join(["1"] * 20_000) + "\n"  # too deep for the parser
    assert all(not changes_code(sums, m) for m in mutants("m.py", sums, {1})[:2])
    assert mutants("m.py", "x = 1\ry = 2 + 3\r", EVERY) == []  # bare CR line ends


def test_an_edit_that_changes_no_code_is_no_mutant() -> None:
    same = Mutant("m.py", 1, 4, 5, "1", "1", "1")
    assert not changes_code("x = 1\n", same)
    broken = Mutant("m.py", 1, 0, 1, "def", "x", "def")  # `def = 1`
    assert not changes_code("x = 1\n", broken)
    assert changes_code("x = 1\n", Mutant("m.py", 1, 4, 5, "2", "1", "2"))


def test_changed_lines_are_the_new_and_replaced_ones() -> None:
    old = "a = 1\nb = 2\nc = 3\n"
    new = "a = 1\nb = 5\nc = 3\nd = 4\n"
    assert changed_lines(old, new) == {2, 4}
    assert changed_lines(None, new) == {1, 2, 3, 4}  # an added file: every line
    assert changed_lines(new, new) == set()


def test_tests_specs_and_other_languages_are_not_mutated() -> None:
    globs = ("test*.py", "*_test.py", "conftest.py")
    assert mutable("calc/core.py", globs, ["PROMPT.md"])
    assert not mutable("tests/test_core.py", globs, [])
    assert not mutable("calc/conftest.py", globs, [])
    assert not mutable("specs/a.py", globs, ["specs/a.py"])
    assert not mutable("web/app.js", globs, [])


def test_plan_mutates_only_changed_lines_of_changed_files() -> None:
    old = "def f(a):\n    return a + 1\n"
    new = "def f(a):\n    return a + 1\n\n\ndef g(b):\n    return b * 2\n"
    chosen, total = plan({"m.py": (old, new)}, 30)
    assert {m.line for m in chosen} == {6}
    assert total == len(chosen)
    assert ("b * 2", "b / 2") in [(m.before, m.after) for m in chosen]


def test_plan_keeps_to_the_limit_spread_over_files_and_lines_and_is_deterministic() -> None:
    body = "".join(f"def f{i}(a):\n    return a + {i + 2} * a\n" for i in range(10))
    changed = {f"pkg/m{n}.py": (None, body) for n in range(3)}
    chosen, total = plan(changed, 9)
    assert len(chosen) == 9 and total > 9
    assert {m.path for m in chosen} == set(changed)  # every file
    assert len({(m.path, m.line) for m in chosen}) == 9  # no line twice while others wait
    assert plan(dict(reversed(list(changed.items()))), 9)[0] == chosen


def test_spread_takes_one_of_each_file_and_line_in_turn() -> None:
    def m(path: str, line: int, start: int) -> Mutant:
        return Mutant(path, line, start, start + 1, "x", "a", "x")

    order = list(spread({
        "a.py": [m("a.py", 1, 0), m("a.py", 1, 1), m("a.py", 2, 9)],
        "b.py": [m("b.py", 5, 0)],
    }))  # fmt: skip
    assert [(x.path, x.line, x.start) for x in order] == [
        ("a.py", 1, 0), ("b.py", 5, 0), ("a.py", 2, 9), ("a.py", 1, 1),
    ]  # fmt: skip
