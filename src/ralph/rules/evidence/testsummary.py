"""What a test run did, read from the runner's own summary (pure): pytest, unittest, go test
(`-v` or `-json`), cargo test, the JavaScript runners (rules/evidence/jssummary.py: TAP from tape
and
`node --test`, jest, vitest, mocha), and JUnit XML counts.

An exit code says nothing about how many tests ran: a run that collected nothing, or that
skipped half of them, exits 0 all the same. Each runner's summary is parsed into counts; the
output of a command that runs several (a Makefile) adds them up.
"""

from __future__ import annotations

import json
import re

from ralph.rules.evidence.jssummary import JS_PARSERS
from ralph.rules.evidence.testcounts import TestCounts, last_and_failures, total

COLLECT_ONLY = "pytest --collect-only"  # a run that only listed its tests
# the summaries ralph reads, as a person is told to print one
READ = "pytest, unittest, node --test, tape (TAP), jest, vitest, mocha, go test -v, cargo test"
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def parse_summary(output: str, *, pytest: bool = True) -> TestCounts | None:
    """The counts of every runner summary found in `output`; None when there is none.
    `pytest`: whether pytest's summary counts (not when pytest's own record of the run is
    there: rules/evidence/runrecord.py)."""
    text = _ANSI.sub("", output).replace("\r\n", "\n")
    parsers = _PARSERS if pytest else _PARSERS[1:]
    found = [c for parse in parsers if (c := parse(text)) is not None]
    return total(found)


def _numbers(body: str, pattern: str) -> dict[str, int]:
    return {word: int(n) for n, word in re.findall(pattern, body)}


_PYTEST = re.compile(
    r"^=*\s*((?:\d+ (?:passed|failed|skipped|xfailed|xpassed|errors?|deselected|warnings?|"
    r"rerun)(?:, )?)+|no tests ran)(?: in [\d.]+s| \([^)]*\))*\s*=*\s*$",
    re.M,
)


# `--collect-only` / `--co`: the tests were found, none was run
_PYTEST_COLLECTED = re.compile(
    r"^=*\s*(?:(\d+)(?:/\d+)? tests? collected|no tests collected)"
    r"(?: \([^)]*\))?(?: in [\d.]+s)?\s*=*\s*$",
    re.M,
)


def _pytest(text: str) -> TestCounts | None:
    lines = _PYTEST.findall(text)
    if not lines:
        if _PYTEST_COLLECTED.search(text) is not None:
            return TestCounts(runners=(COLLECT_ONLY,))
        return None
    counts = [_pytest_line(_numbers(line, r"(\d+) (\w+)")) for line in lines]
    return last_and_failures(counts)


def _pytest_line(n: dict[str, int]) -> TestCounts:
    return TestCounts(
        n.get("passed", 0) + n.get("xpassed", 0),
        n.get("failed", 0) + n.get("error", 0) + n.get("errors", 0),
        n.get("skipped", 0) + n.get("xfailed", 0),
        ("pytest",),
    )


_UNITTEST = re.compile(
    r"^Ran (\d+) tests? in [\d.]+s\s*\n\s*\n?(OK|FAILED|NO TESTS RAN)(?: \(([^)]*)\))?", re.M
)


def _unittest(text: str) -> TestCounts | None:
    found = _UNITTEST.findall(text)
    if not found:
        return None
    return last_and_failures([_unittest_one(ran, details) for ran, _, details in found])


def _unittest_one(ran: str, details: str) -> TestCounts:
    n = {k: int(v) for k, v in re.findall(r"(\w[\w ]*?)=(\d+)", details)} if details else {}
    failed = n.get("failures", 0) + n.get("errors", 0) + n.get("unexpected successes", 0)
    skipped = n.get("skipped", 0) + n.get("expected failures", 0)
    return TestCounts(max(0, int(ran) - failed - skipped), failed, skipped, ("unittest",))


_CARGO = re.compile(
    r"^test result: \w+\. (\d+) passed; (\d+) failed; (\d+) ignored; (\d+) measured;", re.M
)


def _cargo(text: str) -> TestCounts | None:
    found = _CARGO.findall(text)
    if not found:
        return None
    passed = sum(int(p) for p, _, _, _ in found)
    failed = sum(int(f) for _, f, _, _ in found)
    ignored = sum(int(i) for _, _, i, _ in found)
    return TestCounts(passed, failed, ignored, ("cargo test",))


_GO_V = re.compile(r"^\s*--- (PASS|FAIL|SKIP): \S+", re.M)
_GO_PKG = re.compile(r"^(?:ok|FAIL|\?)\s+\S+\s+(?:[\d.]+s|\[no test files\])", re.M)


def _go(text: str) -> TestCounts | None:
    events = _go_json(text)
    if events is not None:
        return events
    results = _GO_V.findall(text)
    if results:
        return TestCounts(
            results.count("PASS"), results.count("FAIL"), results.count("SKIP"), ("go test",)
        )
    if _GO_PKG.search(text) is None:
        return None
    # without -v go test prints no counts: only a run of nothing at all is known
    if all("[no test files]" in m or "[no tests to run]" in m for m in _go_lines(text)):
        return TestCounts(runners=("go test",))
    return None


def _go_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if _GO_PKG.match(line)]


def _go_json(text: str) -> TestCounts | None:
    counts = {"pass": 0, "fail": 0, "skip": 0}
    seen = False
    for line in text.splitlines():
        if not line.startswith('{"') or '"Action"' not in line:
            continue
        try:
            event = json.loads(line)
        except ValueError:
            continue
        seen = True
        if isinstance(event, dict) and event.get("Test") and event.get("Action") in counts:
            counts[event["Action"]] += 1
    if not seen:
        return None
    return TestCounts(counts["pass"], counts["fail"], counts["skip"], ("go test",))


_PARSERS = (_pytest, _unittest, *JS_PARSERS, _cargo, _go)
