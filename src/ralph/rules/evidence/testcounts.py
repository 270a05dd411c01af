"""How many tests a run passed, failed and skipped: the evidence a test run leaves (pure).

Apart from the parsers of the runners' summaries (rules/evidence/testsummary.py), so that the state
and
the displays that show counts do not load them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace


@dataclass(frozen=True)
class TestCounts:
    passed: int = 0
    failed: int = 0  # failures and errors
    skipped: int = 0  # skipped, ignored, xfailed, todo
    runners: tuple[str, ...] = ()  # which summaries they come from

    @property
    def executed(self) -> int:
        return self.passed + self.failed

    def __add__(self, other: TestCounts) -> TestCounts:
        runners = tuple(dict.fromkeys((*self.runners, *other.runners)))
        return TestCounts(
            self.passed + other.passed,
            self.failed + other.failed,
            self.skipped + other.skipped,
            runners,
        )

    def to_json(self) -> dict[str, object]:
        return {
            "passed": self.passed,
            "failed": self.failed,
            "skipped": self.skipped,
            "runners": list(self.runners),
        }

    def describe(self) -> str:
        return f"{self.passed} passed, {self.failed} failed, {self.skipped} skipped"


def total(counts: Iterable[TestCounts]) -> TestCounts | None:
    out: TestCounts | None = None
    for c in counts:
        out = c if out is None else out + c
    return out


def last_and_failures(counts: Sequence[TestCounts]) -> TestCounts:
    """One runner's summaries in one output: the last one's counts, with the most failures
    any shows: a later summary (a second run, or a line the tests printed) never hides an
    earlier run's failures, and an earlier line adds no passes."""
    return replace(counts[-1], failed=max(c.failed for c in counts))


def junit_counts(suites: Iterable[tuple[int, int, int, int]]) -> TestCounts:
    """JUnit XML's (tests, failures, errors, skipped) of each suite, as counts."""
    passed = failed = skipped = 0
    for tests, failures, errors, skips in suites:
        failed += failures + errors
        skipped += skips
        passed += max(0, tests - failures - errors - skips)
    return TestCounts(passed, failed, skipped, ("junit",))


def bar_of(measured: TestCounts) -> TestCounts:
    """The bar a start measurement sets: every test that ran then (passed, failed or errored)
    must pass at a DONE, and no more may be skipped."""
    return TestCounts(measured.executed, 0, measured.skipped, measured.runners)


def merged_bar(previous: TestCounts | None, measured: TestCounts, *, fresh: bool) -> TestCounts:
    """The bar after a start measurement. `fresh`: the tests are as a person left them (first
    measurement, or a person edited the tests since): the measurement is the bar. Otherwise
    the tree may still hold an earlier run's agent's work, so the bar never falls."""
    bar = bar_of(measured)
    if fresh or previous is None:
        return bar
    return TestCounts(
        max(previous.passed, bar.passed),
        0,
        min(previous.skipped, bar.skipped),
        bar.runners or previous.runners,
    )
