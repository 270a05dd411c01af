"""Test runs are evidence: each runner's summary, as recorded from the real runner
(tests/fixtures/runners), gives passed / failed / skipped; a run of no test fails; a drop
from the best run is named."""

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
