"""checks/bar.py: the bar a spec's tests must hold, measured by ralph before the agent's first
rotation."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from ralph.checks.bar import to_measure
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import SpecState, State
from ralph.rules.evidence.testcounts import TestCounts as Counts
from ralph.specs.frontmatter import parse_front_matter

RUNNERS = Path(__file__).parents[1] / "fixtures" / "runners"


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
    from ralph.rules.evidence.testcounts import TestCounts

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


def test_the_bar_says_when_no_test_file_is_recognised(tmp_path: Path) -> None:
    """A JavaScript project whose tests none of ralph's patterns names (`checks/`) hears it at
    the bar, with what to set; one in `test/` (tape's and node's layout) does not."""
    from ralph.checks.bar import start_bars
    from ralph.checks.recognised import UNRECOGNISED
    from tests.checks.test_gate import A, rig, spec

    node = (RUNNERS / "node-test-passed.txt").read_text()
    for folder, said in (("checks", True), ("test", False)):
        files = {
            A: spec(f"test_command: node --test {folder}/"),
            f"{folder}/calc.js": "const test = require('node:test');\ntest('adds', () => {});\n",
        }
        r = rig(tmp_path / folder, files, {f"node --test {folder}/": (0, node)})
        lines: list[str] = []
        state = start_bars(
            r.gate,
            list(r.specs().values()),
            State(specs=(SpecState(A),)),
            tests_edited=False,
            notify=lines.append,
        )
        assert (f"tests' bar: {UNRECOGNISED}" in lines) is said, lines
        assert any("tests' bar of specs/a.spec.md: 3 tests ran" in line for line in lines)
        row = state.get(A)
        assert row is not None and row.best_tests == Counts(3, 0, 2, ("node --test",))


def test_a_command_without_a_summary_is_told_what_to_print() -> None:
    from ralph.checks.bar import Measured

    line = Measured("./run-tests.sh", ("specs/a.spec.md",), None, "exit code 0").line()
    assert "`./run-tests.sh` printed no test summary ralph reads (no bar)" in line
    assert "node --test, tape (TAP)" in line and "`test_report:`" in line
