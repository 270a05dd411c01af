"""A test run's per-case results, on ralph's terms: the command run in a room with a JUnit XML
report it must write afresh, read as testcases (rules/evidence/junitcases.py).

For pytest ralph asks for the report itself, in `PYTEST_ADDOPTS` after the person's own options
(a later `--junitxml` wins over the project's `addopts`), at a name drawn at random in the room
(the only folder a sandboxed run may write besides its temporary one), removed before and after
the run: a file left there earlier, or one the run did not write, is no result. Other runners
name the file they write (`report:`); it must be written by this run too. A run that wrote no
report (`python -m unittest -v`, or pytest where ralph's option did not reach it) is read from
the per-case lines it printed (rules/evidence/caselines.py), which must add up to its own summary: a
structured report is preferred wherever there is one.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import shlex
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ralph.checks.command import run_command
from ralph.checks.failure import output_tail, relative
from ralph.checks.result import CheckResult
from ralph.errors import RalphError
from ralph.process.launcher import Launcher
from ralph.rules.evidence.caselines import printed_cases
from ralph.rules.evidence.junitcases import JCase
from ralph.rules.evidence.testcounts import TestCounts
from ralph.specs.checkconfig import ExternalConfig, RevertConfig
from ralph.store.disk import reader

MAX_REPORT_BYTES = reader.REPORT_LIMIT
REPORT_HINT = (
    "run unittest with -v, or pytest; for another runner, or a command that names its own "
    "--junitxml, set the check's config.report to the JUnit XML file the command writes"
)


@dataclass(frozen=True)
class CaseRun:
    cases: list[JCase] | None  # None: no per-case results (`why` says why)
    result: CheckResult  # the run's own: interrupted, timed out, its output
    why: str = ""


def case_run(
    cfg: RevertConfig,
    command: str,
    room: Path,
    env: Mapping[str, str],
    cancel: threading.Event,
    *,
    name: str,
    launcher: Launcher,
) -> CaseRun:
    """Run `command` in `room`, and read its testcases."""
    env = dict(env)
    if cfg.report is None:
        report = room / f".ralph-cases-{secrets.token_hex(8)}.xml"
        ours = f"--junitxml={shlex.quote(str(report))} -o junit_family=xunit1"
        ours += " --continue-on-collection-errors"  # one bad file hides no other case
        env["PYTEST_ADDOPTS"] = f"{env.get('PYTEST_ADDOPTS', '')} {ours}".strip()
    else:
        report = room / cfg.report
    if _inside(report, room):
        _remove(report)
    started = time.time()
    # a sandbox passes only the variables it knows: ralph's request for the report too
    passes = frozenset({"PYTEST_ADDOPTS"}) if cfg.report is None else frozenset()
    whole = run_command(
        ExternalConfig(command=command, timeout=cfg.timeout),
        room,
        env,
        cancel,
        name=name,
        room=room,
        launcher=launcher,
        passes=passes,
        whole=True,
    )
    result = replace(
        whole, output=output_tail(relative(whole.output, room)) if not whole.passed else ""
    )
    try:
        if result.interrupted or result.summary.startswith("timed out"):
            return CaseRun(None, result, result.summary)
        # a folder on the way the run made a link out of the room: read and remove nothing
        if not _inside(report, room):
            return CaseRun(None, result, f"its report {cfg.report} is not inside the project")
        cases = read_cases(report, started)
    finally:
        if _inside(report, room):
            _remove(report)
    if cases is None and cfg.report is None:
        printed = printed_cases(whole.output)  # no report: the lines it printed, if they add up
        if printed.cases is not None:
            return CaseRun(printed.cases, result)
        if printed.why and "no per-case results" not in printed.why:
            return CaseRun(None, result, f"{result.summary}; {printed.why}")
    if cases is None:
        return CaseRun(None, result, f"{result.summary}; {REPORT_HINT}")
    if cfg.report is None:
        return CaseRun(cases, result, mismatch(cases, result.counts) or "")
    return CaseRun(cases, result)


def mismatch(cases: list[JCase], counts: TestCounts | None) -> str | None:
    """Why pytest's report cannot be its run's own: more failed (or passed) testcases than the
    summary it printed (a report rewritten after the run, by a hook or at exit)."""
    if counts is None or "pytest" not in counts.runners:
        return None
    failed = sum(1 for c in cases if c.outcome == "failed")
    passed = sum(1 for c in cases if c.outcome == "passed")
    if failed > counts.failed or passed > counts.passed:
        return (
            f"its JUnit report ({passed} passed, {failed} failed) does not match the summary "
            f"it printed ({counts.describe()}): something rewrote the report"
        )
    return None


def read_cases(report: Path, started: float) -> list[JCase] | None:
    """The testcases of `report` when this run (begun at wall time `started`) wrote it."""
    import io

    try:  # the one reader: a link, a pipe or a device is no report, and never a hang
        with reader.open_file(report, root=report.parent) as f:
            if os.fstat(f.fileno()).st_mtime < started - 1.0:
                return None
            raw = f.read(MAX_REPORT_BYTES + 1)
    except (OSError, RalphError):
        return None
    if len(raw) > MAX_REPORT_BYTES:
        return None
    try:
        from junitparser import JUnitXml, TestSuite  # only when a revert check runs

        xml = JUnitXml.fromfile(io.BytesIO(raw))
        suites = [xml] if isinstance(xml, TestSuite) else list(xml)
        return [
            JCase(
                case.classname or "",
                case.name or "",
                case._elem.get("file"),  # xunit1's attribute: junitparser has no name for it
                "skipped" if case.is_skipped else "passed" if case.is_passed else "failed",
            )
            for suite in suites
            for case in suite
        ]
    except Exception:  # a half-written or foreign file: no result
        return None


def _inside(report: Path, room: Path) -> bool:
    try:
        return report.parent.resolve().is_relative_to(room.resolve())
    except OSError:
        return False


def _remove(report: Path) -> None:
    with contextlib.suppress(OSError):
        if report.is_symlink() or report.is_file():
            report.unlink()
