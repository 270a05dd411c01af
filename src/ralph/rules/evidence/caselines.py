"""Per-case results read from what a test runner printed (pure): `python -m unittest -v` and
`pytest -v` (or `-rA`), for the revert check when the run wrote no JUnit report.

The runner prints into the same stream the tests can write to, so a test can print lines that
look like the runner's own ("test_x (m.T.test_x) ... ok"). Text can only be added, never taken
away, so the lines are read on the runner's terms and must add up to its own summary:
- exactly one final summary (a second one, or one printed by a test, is no result);
- as many case lines as the summary says ran, each case once;
- one outcome per case line (a test that prints "ok" on a line of its own makes two: no
  result), and as many failed and skipped outcomes as the summary counts.
Anything that does not add up is no result (`CaseLines.why` says why), never a guess.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from ralph.rules.evidence.junitcases import JCase

Kind = Literal["passed", "failed", "skipped"]


@dataclass(frozen=True)
class CaseLines:
    cases: list[JCase] | None  # None: no per-case result (`why`)
    why: str = ""


NOT_FOUND = CaseLines(None, "it printed no per-case results (run unittest with -v, or pytest)")

# unittest's case line: "name (where)" [" (params)" for a subTest] ["\n" the docstring's
# first line] " ... ", then what the test printed and the outcome word on a line of its own
_HEADER = re.compile(
    r"(?P<name>[A-Za-z_]\w*) \((?P<where>[A-Za-z_][\w.]*)\)(?P<sub> \([^\n]*?\))?"
    r"(?:\n[^\n]*?)? \.\.\. "
)
_WORDS = r"(ok|FAIL|ERROR|skipped(?: .*)?|expected failure|unexpected success)"
_TOKEN = re.compile(_WORDS)
_GLUED = re.compile(r".*?" + _WORDS)  # the runner's word after what a test printed
_SUMMARY = re.compile(
    r"^Ran (\d+) tests? in [\d.]+s[ \t]*\n[ \t]*\n?(OK|FAILED|NO TESTS RAN)(?: \(([^)\n]*)\))?",
    re.M,
)
_FIXTURE = re.compile(r"^ERROR: (?:setUpClass|tearDownClass|setUpModule|tearDownModule) \(", re.M)
_FAILED_IMPORT = "unittest.loader._FailedTest"


def _tokens(segment: str) -> list[str]:
    """The outcome words in what follows a case line: a line that is one, or the word the
    segment's last line ends with (the runner writes it right after what the test printed,
    which may not end its line)."""
    lines = segment.rstrip().split("\n")
    found = [m[1] for line in lines[:-1] if (m := _TOKEN.fullmatch(line.strip()))]
    last = _GLUED.fullmatch(lines[-1].strip()) if lines[-1].strip() else None
    return found + ([last[1]] if last else [])


def _kind(token: str) -> Kind:
    if token in ("FAIL", "ERROR", "unexpected success"):
        return "failed"
    return "passed" if token == "ok" else "skipped"


def unittest_cases(output: str) -> CaseLines:
    """The cases `python -m unittest -v` printed in `output` (stdout and stderr)."""
    text = output.replace("\r\n", "\n")
    summary = _one_summary(text, _SUMMARY, "unittest", "the tests")
    if isinstance(summary, CaseLines):
        return summary
    body = text[: summary.start()]
    counts = {k: int(v) for k, v in re.findall(r"(\w[\w ]*?)=(\d+)", summary[3] or "")}
    ran = int(summary[1])
    want_failed = counts.get("failures", 0) + counts.get("errors", 0)
    want_failed += counts.get("unexpected successes", 0)
    want_skipped = counts.get("skipped", 0) + counts.get("expected failures", 0)
    fixtures = len(_FIXTURE.findall(body))  # a class or module fixture's own ERROR line
    headers = list(_HEADER.finditer(body))
    if not headers:
        return NOT_FOUND
    cases: dict[tuple[str, str], list[Kind]] = {}
    failed = skipped = spare = 0
    for i, head in enumerate(headers):
        end = headers[i + 1].start() if i + 1 < len(headers) else len(body)
        tokens = _tokens(body[head.end() : end])
        while len(tokens) > 1 and tokens[-1] == "ERROR" and spare < fixtures:
            tokens.pop()
            spare += 1
        key = (head["name"], head["where"])
        sub = head["sub"] is not None
        if len(tokens) > 1 or (sub and not tokens):
            return CaseLines(
                None,
                f"its output has {len(tokens)} outcomes for {head[0].strip()}"
                ": a test printed lines like the runner's own",
            )
        if not sub:
            if key in cases:
                return CaseLines(None, f"its output names {head['name']} twice")
            cases[key] = []
        elif key not in cases:
            return CaseLines(None, f"its output has a subtest of {head['name']} outside it")
        kinds = [_kind(t) for t in tokens]
        failed += kinds.count("failed")
        skipped += kinds.count("skipped")
        cases[key] += kinds
    if len(cases) != ran or failed + spare != want_failed or skipped != want_skipped:
        return CaseLines(
            None,
            f"its {len(cases)} case lines ({failed} failed, {skipped} "
            f"skipped) do not add up to its summary (ran {ran}, {want_failed} "
            f"failed, {want_skipped} skipped)",
        )
    return CaseLines([_unittest_case(n, w, k) for (n, w), k in cases.items()])


def _unittest_case(name: str, where: str, kinds: Sequence[Kind]) -> JCase:
    # as junitcases merges a parametrized case; no outcome at all proves nothing, as a skip
    outcome: Kind = (
        "failed" if "failed" in kinds else "passed" if "passed" in kinds else ("skipped")
    )
    if where.startswith(_FAILED_IMPORT + "."):
        # a module that could not be imported: every case of it fails (junitcases' rule)
        return JCase("", where.removeprefix(_FAILED_IMPORT + "."), None, "failed")
    # 3.11 and later: "test_x (mod.Class.test_x)"; before: "test_x (mod.Class)"
    owner = where.removesuffix("." + name) if where.endswith("." + name) else where
    return JCase(owner, name, None, outcome)


# pytest -v: "path::id STATUS[ (reason)] [ 50%]"; -rA's short summary: "STATUS path::id[ - …]"
_STATUS = (
    r"(?P<raw>(?:PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS|SUBPASSED|SUBFAILED|SUBSKIPPED)"
    r"(?:\([^\n]*?\))?)"
)
_PYTEST_LINE = re.compile(
    rf"^(?P<id>[^\s:]+\.py::\S+) {_STATUS}(?: \([^\n]*\))?"
    r"(?:[ \t]+\[[ \d]+%\])?[ \t]*$",
    re.M,
)
_PYTEST_SHORT = re.compile(rf"^{_STATUS} (?P<id>[^\s:]+\.py(?:::\S+)?)(?: - .*)?$", re.M)
_PYTEST_SUMMARY = re.compile(
    r"^=+ ((?:\d+ [a-z ]+?(?:, )?)+|no tests ran)(?: in [\d.]+s)?(?: \([^)]*\))? =+[ \t]*$",
    re.M,
)
_PYTEST_KIND: dict[str, Kind] = {
    "PASSED": "passed",
    "XPASS": "passed",
    "FAILED": "failed",
    "ERROR": "failed",
    "SKIPPED": "skipped",
    "XFAIL": "skipped",
    "SUBPASSED": "passed",
    "SUBFAILED": "failed",
    "SUBSKIPPED": "skipped",
}


def pytest_cases(output: str) -> CaseLines:
    """The cases `pytest -v` (or `-rA`) printed in `output`. pytest captures what the tests
    print, so its lines are its own unless a test writes past the capture; they must still
    add up to its one final summary (a subtest's line counts there, and in its case)."""
    text = output.replace("\r\n", "\n")
    summary = _one_summary(text, _PYTEST_SUMMARY, "pytest", "pytest")
    if isinstance(summary, CaseLines):
        return summary
    body = text[: summary.start()]
    n: dict[str, int] = {}
    for count, words in re.findall(r"(\d+) ([a-z ]+)", summary[1]):
        n[words.strip()] = int(count)
    want = {
        "passed": n.get("passed", 0) + n.get("xpassed", 0),
        "failed": n.get("failed", 0) + n.get("error", 0) + n.get("errors", 0),
        "skipped": n.get("skipped", 0) + n.get("xfailed", 0),
    }
    # -v's lines and the short summary's (-rA; a subtest's failure and a file that could
    # not be collected show only there), each (case, status) once
    found = {(m["id"], m["raw"]) for r in (_PYTEST_LINE, _PYTEST_SHORT) for m in r.finditer(body)}
    if not found:
        return NOT_FOUND
    got = dict.fromkeys(want, 0)
    seen: dict[str, list[Kind]] = {}
    for node, raw in sorted(found):
        status = raw.partition("(")[0]
        kind = _PYTEST_KIND[status]
        if not status.startswith("SUB") or kind == "failed":  # passed subtests: not counted
            got[kind] += 1
        seen.setdefault(node, []).append(kind)
    # skips prove nothing, and -rA names no case it skipped: passed and failed must add up
    del got["skipped"], want["skipped"]
    if got != want:
        return CaseLines(
            None,
            f"its case lines ({_describe(got)}) do not add up to its summary ({_describe(want)})",
        )
    return CaseLines([_pytest_case(node, kinds) for node, kinds in seen.items()])


def _describe(n: dict[str, int]) -> str:
    return ", ".join(f"{v} {k}" for k, v in n.items())


def _pytest_case(node: str, kinds: list[Kind]) -> JCase:
    kind: Kind = "failed" if "failed" in kinds else "passed" if "passed" in kinds else "skipped"
    path, _, rest = node.partition("::")
    if not rest:  # a file pytest could not collect
        return JCase("", path, path, "failed")
    *owners, name = rest.split("::")
    module = str(PurePosixPath(path).with_suffix("")).replace("/", ".")
    return JCase(".".join([module, *owners]), name, path, kind)


def printed_cases(output: str) -> CaseLines:
    """The per-case results of whichever runner ralph knows printed them."""
    found = unittest_cases(output)
    if found.cases is not None or found is not NOT_FOUND:
        return found
    return pytest_cases(output)


def _one_summary(
    text: str, pattern: re.Pattern[str], runner: str, what: str
) -> re.Match[str] | CaseLines:
    """The runner's one final summary in `text`, or why the lines cannot be taken: none
    (NOT_FOUND), or more than one (a test printed a summary of its own, or two runs)."""
    summaries = list(pattern.finditer(text))
    if not summaries:
        return NOT_FOUND
    if len(summaries) > 1:
        return CaseLines(
            None,
            f"its output holds more than one {runner} summary (run {what} once, or write a "
            "JUnit report)",
        )
    return summaries[0]
