"""checks/bar.py: the bar a spec's tests must hold, measured by ralph before the agent's first
rotation."""

from __future__ import annotations

from dataclasses import replace

from ralph.checks.bar import to_measure
from ralph.rules.spec import Spec
from ralph.rules.state import SpecState, State
from ralph.rules.testcounts import TestCounts as Counts
from ralph.specs.frontmatter import parse_front_matter


def test_which_specs_have_their_bar_measured() -> None:
    def spec(path: str, command: str | None) -> Spec:
        text = (f"---\ntest_command: {command}\n---\n" if command else "") + "# x\n"
        return Spec(path, text, f"hash of {text}")

    specs = [spec("a.spec.md", "make test"), spec("b.spec.md", "make test"), spec("c.md", None)]
    metas = [(s, parse_front_matter(s.path, s.text)) for s in specs]
    fresh = State(specs=tuple(SpecState(s.path) for s in specs))
    assert to_measure(metas, fresh, tests_edited=False) == {
        ("make test", 900.0): ["a.spec.md", "b.spec.md"]  # one run for both
    }
    bar = Counts(4)
    a, b = (SpecState(s.path, best_tests=bar, last_hash=s.content_hash) for s in specs[:2])
    kept = State(specs=(a, replace(b, last_hash="changed by a person")))
    assert to_measure(metas, kept, tests_edited=False) == {("make test", 900.0): ["b.spec.md"]}
    assert len(to_measure(metas, kept, tests_edited=True)[("make test", 900.0)]) == 2


def test_the_bar_line_says_what_ran_in_words_that_fit() -> None:
    from ralph.checks.bar import Measured
    from ralph.rules.testcounts import TestCounts

    def line(passed: int, failed: int, skipped: int) -> str:
        return Measured(
            "pytest", ("specs/a.spec.md",), TestCounts(passed, failed, skipped), ""
        ).line()

    collection_error = line(0, 1, 0)
    assert "no test passed before the first rotation" in collection_error
    assert "1 test failed or could not be collected" in collection_error
    assert "1 tests" not in collection_error
    nothing = line(0, 0, 2)
    assert "no test ran before the first rotation" in nothing
    assert "at least 0" not in nothing and "a DONE needs its tests to run and pass" in nothing
    assert line(3, 1, 0).startswith("tests' bar of specs/a.spec.md: 4 tests ran before")
    assert line(1, 0, 0).startswith("tests' bar of specs/a.spec.md: 1 test ran before")
