"""rules/evidence/mutants.py: mutants of Python source (pure)."""

from __future__ import annotations

import ast

import pytest

from ralph.rules.evidence.mutants import Mutant, changes_code, mutants

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
