"""rules/evidence/mutantplan.py: which mutants the mutation check runs (pure)."""

from __future__ import annotations

from ralph.rules.evidence.mutantplan import changed_lines, mutable, plan, spread
from ralph.rules.evidence.mutants import Mutant


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

    order = list(
        spread(
            {
                "a.py": [m("a.py", 1, 0), m("a.py", 1, 1), m("a.py", 2, 9)],
                "b.py": [m("b.py", 5, 0)],
            }
        )
    )
    assert [(x.path, x.line, x.start) for x in order] == [
        ("a.py", 1, 0),
        ("b.py", 5, 0),
        ("a.py", 2, 9),
        ("a.py", 1, 1),
    ]
