"""What a JavaScript test run did, read from its runner's summary (pure): TAP (tape, and
`node --test`, whose spec reporter prints the same counters after an information sign,
U+2139), jest, vitest and mocha. rules/evidence/testsummary.py reads them beside the other runners'.

TAP is read by its summary comments (`# tests N`, `# pass N`, `# fail N`...), or, from a
producer that prints none, by its plan and its top-level `ok` / `not ok` lines. Written here
rather than taken from a TAP library: what ralph needs is the counts of the last of possibly
several runs in mixed output, a dozen lines, while a TAP parser reads one clean stream.
"""

from __future__ import annotations

import re

from ralph.rules.evidence.testcounts import TestCounts, last_and_failures

NODE = "node --test"
TAP = "tap"

# one counter line of a TAP summary (`# pass  4`: tape pads) or of node's spec reporter
_COUNTER = re.compile(
    r"^[#\u2139] (tests|suites|pass|fail|cancelled|skipped|skip|todo|duration_ms) +[\d.]+[ \t]*$"
)
# a test point with a SKIP or TODO directive (TAP 13: case does not matter), at any depth
_DIRECTIVE = re.compile(r"^[ \t]*(?:not )?ok\b[^\n#]*#[ \t]*(?:skip|todo)\b", re.M | re.I)
_TAPE_SKIPPED = re.compile(r"^# SKIP \S", re.M)  # tape's line for a test skipped whole
_PLAN = re.compile(r"^1\.\.\d+\b", re.M)
_POINT = re.compile(r"^(not )?ok\b(.*)$", re.M)  # top level only: a subtest's is indented


def _tap(text: str) -> TestCounts | None:
    blocks = _summaries(text)
    if not blocks:
        return _tap_points(text)
    out: list[TestCounts] = []
    start = 0
    for begin, end, n in blocks:
        out.append(_tap_summary(n, text[start:begin]))
        start = end
    return last_and_failures(out)


def _summaries(text: str) -> list[tuple[int, int, dict[str, int]]]:
    """Each summary: where it begins and ends, and its counters; a `tests` line begins one."""
    found: list[tuple[int, int, dict[str, int]]] = []
    current: dict[str, int] | None = None
    offset = 0
    for line in text.splitlines(keepends=True):
        m = _COUNTER.match(line.rstrip("\n"))
        if m is not None and (m[1] == "tests" or current is not None):
            if m[1] == "tests":
                current = {}
                found.append((offset, offset, current))
            assert current is not None
            current[m[1]] = int(float(line.split()[-1]))
            found[-1] = (found[-1][0], offset + len(line), current)
        else:
            current = None
        offset += len(line)
    return [b for b in found if "pass" in b[2]]


def _tap_summary(n: dict[str, int], run: str) -> TestCounts:
    """One summary's counts; `run`: the output of its run, before it."""
    failed = n.get("fail", 0) + n.get("cancelled", 0)
    if "skipped" in n or "todo" in n or "skip" in n:  # node: `pass` leaves skips out
        skipped = n.get("skipped", 0) + n.get("skip", 0) + n.get("todo", 0)
        return TestCounts(n["pass"], failed, skipped, (NODE if "suites" in n else TAP,))
    # tape counts a skipped or todo assertion as passed and prints no count of them
    directives = len(_DIRECTIVE.findall(run))
    skipped = directives + len(_TAPE_SKIPPED.findall(run))
    return TestCounts(max(0, n["pass"] - directives), failed, skipped, (TAP,))


def _tap_points(text: str) -> TestCounts | None:
    """A TAP stream with no summary (bats, a hand-made producer): its top-level test points,
    when a plan says it is TAP."""
    points = _POINT.findall(text)
    if _PLAN.search(text) is None or not points:
        return None
    passed = failed = skipped = 0
    for not_ok, rest in points:
        if re.search(r"#[ \t]*(?:skip|todo)\b", rest, re.I) is not None:
            skipped += 1
        elif not_ok:
            failed += 1
        else:
            passed += 1
    if re.search(r"^Bail out!", text, re.M) is not None:
        failed = max(failed, 1)
    return TestCounts(passed, failed, skipped, (TAP,))


_JEST = re.compile(r"^Tests:\s+(.*?\d+ total)\s*$", re.M)


def _numbers(body: str) -> dict[str, int]:
    return {word: int(n) for n, word in re.findall(r"(\d+) (\w+)", body)}


def _jest(text: str) -> TestCounts | None:
    found = _JEST.findall(text)
    if not found:
        # `--passWithNoTests` exits 0 all the same
        none = "No tests found, exiting with code" in text
        return TestCounts(runners=("jest",)) if none else None
    n = _numbers(found[-1])
    skipped = n.get("skipped", 0) + n.get("todo", 0) + n.get("pending", 0)
    return TestCounts(n.get("passed", 0), n.get("failed", 0), skipped, ("jest",))


_VITEST = re.compile(r"^\s*Tests\s+(.*?)\((\d+)\)\s*$", re.M)


def _vitest(text: str) -> TestCounts | None:
    found = _VITEST.findall(text)
    if not found:
        return TestCounts(runners=("vitest",)) if "No test files found, exiting" in text else None
    body, _ = found[-1]
    n = _numbers(body)
    skipped = n.get("skipped", 0) + n.get("todo", 0)
    return TestCounts(n.get("passed", 0), n.get("failed", 0), skipped, ("vitest",))


# mocha's spec reporter: "  3 passing (12ms)", then "  2 pending" and "  1 failing" if any
_MOCHA = re.compile(
    r"^[ \t]*(\d+) passing \([^)\n]*\)[ \t]*$(?:\n[ \t]*(\d+) pending[ \t]*$)?"
    r"(?:\n[ \t]*(\d+) failing[ \t]*$)?",
    re.M,
)


def _mocha(text: str) -> TestCounts | None:
    found = _MOCHA.findall(text)
    if not found:
        return None
    runs = [TestCounts(int(p), int(f or 0), int(s or 0), ("mocha",)) for p, s, f in found]
    return last_and_failures(runs)


JS_PARSERS = (_tap, _jest, _vitest, _mocha)
