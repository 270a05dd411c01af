"""Test runs are evidence, not exit codes: the counts of a command's test run, read from the
JUnit XML report the check names (written by this run) or from the runner's summary in its
output; a run that executed no test fails; a later run must not fall behind the spec's best.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ralph.checks.acceptance import Pending, Scope
from ralph.rules.counts.state import SpecState, State
from ralph.rules.evidence.runrecord import RunRecord
from ralph.rules.evidence.testcounts import TestCounts, junit_counts
from ralph.rules.evidence.testsummary import COLLECT_ONLY, parse_summary

NO_TESTS = "ran no test"
FAILED_TESTS = "its tests failed"
NO_SUMMARY = "printed no test summary"
DROP_HINT = "restore the tests, or a person accepts the drop with `ralph accept`"


def run_counts(
    output: str, report: Path | None, started: float, record: RunRecord | None = None
) -> TestCounts | str | None:
    """The counts of one command's test run; None when it is no known test run; a str says
    why counts that should be there are not (a named report missing, stale or unreadable).
    `started` is the wall clock when the command started: an older report is a previous run's.
    `record`: pytest's own record of the run, whose counts stand for pytest's summary."""
    if report is not None:
        return _report_counts(report, started)
    if record is not None:
        others = parse_summary(output, pytest=False)
        return record.counts + others if others is not None else record.counts
    return parse_summary(output)


def no_tests(counts: TestCounts) -> str | None:
    """Why a run that executed no test fails, or None."""
    if counts.executed:
        return None
    if COLLECT_ONLY in counts.runners:
        return f"{NO_TESTS}: it only collected them ({COLLECT_ONLY})"
    where = ", ".join(counts.runners) or "the report"
    return f"{NO_TESTS} ({where}: {counts.describe()})"


def failed_tests(counts: TestCounts, exit_code: int) -> str | None:
    """Why a run whose summary (or report) shows a failed or errored test fails whatever its
    exit code (`pytest ... || true`, a wrapper script), or None."""
    if not counts.failed:
        return None
    where = ", ".join(counts.runners) or "the report"
    return f"{FAILED_TESTS} ({where}: {counts.describe()}) though it exited {exit_code}"


def vanished(now: TestCounts | None, before: TestCounts | None) -> str | None:
    """Why a test run with no summary fails when the same spec's test run had one before (at
    the start measurement or an earlier DONE): `os._exit(0)` at import exits 0 and prints
    nothing. None when a summary is there or none was ever seen."""
    if now is not None or before is None:
        return None
    return (
        f"the test run {NO_SUMMARY}, though it printed one before ({before.describe()}): "
        "the tests did not run to the end"
    )


def _report_counts(path: Path, started: float) -> TestCounts | str:
    """The counts of the JUnit report a check's command wrote, read through the one reader
    (store/disk/reader.py): a link, a pipe or a device there is no report, and never a hang."""
    import io
    import os

    from ralph.errors import RalphError
    from ralph.store.disk import reader

    try:
        with reader.open_file(path, root=path.parent) as f:
            if os.fstat(f.fileno()).st_mtime < started - 1.0:  # file systems round times down
                return f"its report {path.name} was not written by this run"
            raw = f.read(reader.REPORT_LIMIT + 1)
    except FileNotFoundError:
        return f"it wrote no report {path.name}"
    except (OSError, RalphError) as exc:
        why = exc.message if isinstance(exc, RalphError) else exc.strerror or str(exc)
        return f"its report {path.name} cannot be read ({why})"
    if len(raw) > reader.REPORT_LIMIT:
        return f"its report {path.name} is larger than ralph reads ({reader.REPORT_LIMIT:,} bytes)"
    try:
        from junitparser import JUnitXml, TestSuite  # only when a check names a report

        xml = JUnitXml.fromfile(io.BytesIO(raw))
        suites = [xml] if isinstance(xml, TestSuite) else list(xml)
        return junit_counts(
            (int(s.tests or 0), int(s.failures or 0), int(s.errors or 0), int(s.skipped or 0))
            for s in suites
        )
    except Exception as exc:  # a half-written or foreign file: the evidence is missing
        return f"its report {path.name} cannot be read as JUnit XML ({type(exc).__name__})"


def drop(now: TestCounts, best: TestCounts | None) -> str | None:
    """Why `now` falls behind the spec's best run (fewer passing, more skipped), or None."""
    if best is None:
        return None
    if now.passed < best.passed:
        return f"fewer tests passed than in the best run ({now.passed} < {best.passed})"
    if now.skipped > best.skipped:
        return f"more tests skipped than in the best run ({now.skipped} > {best.skipped})"
    return None


def fell_behind(now: TestCounts | None, row: SpecState | None) -> str | None:
    """Why the counts of a DONE's checks fall behind the spec's (the bar measured at the
    start, or its best DONE): fewer passing, more skipped, or no summary where there was one."""
    if row is None:
        return None
    gone = vanished(now, row.best_tests or row.tests)
    if gone is not None:
        return f"{gone} (let the agent fix what stops them)"
    fell = drop(now, row.best_tests) if now is not None else None
    return f"{fell} ({DROP_HINT})" if fell is not None else None


class CountsAcceptor:
    """`ralph accept` for a drop in a spec's test counts: the last run becomes the best."""

    kind = "test counts"

    def pending(self, scope: Scope, state: State) -> list[Pending]:
        out: list[Pending] = []
        for row in state.specs:
            if row.tests is None or not scope.wanted(row.path):
                continue
            fell = drop(row.tests, row.best_tests)
            if fell is not None and row.best_tests is not None:
                best, last = row.best_tests.describe(), row.tests.describe()
                lines = (f"best run: {best}", f"last run: {last}")
                out.append(Pending(self.kind, row.path, f"{row.path}: {fell}", lines))
        return out

    def accept(self, scope: Scope, state: State, items: Sequence[Pending]) -> State:
        for item in items:
            row = state.get(item.spec or "")
            if row is not None and row.tests is not None:
                state = state.with_spec(replace(row, best_tests=row.tests))
        return state
