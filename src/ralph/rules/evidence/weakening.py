"""Were the tests weakened? The baseline tests against the tests now (pure).

Tests may grow, never shrink: every baseline test case must still exist (in its file, or moved
to another one under the same name) with every one of its lines; assertions outside the cases
must stay; a file without cases (a helper, a conftest, a snapshot) must keep its lines; and no
skip, xfail, only or ignore marker may be added anywhere. Adding tests, adding lines, moving or
renaming a file, and re-indenting are not weakening; a removed or changed line is.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass

from ralph.rules.evidence.testcases import Case, TestText, read_tests

_ASSERTION = re.compile(
    r"\bassert|\bexpect\b|\bexpect\(|\.to[A-Z]\w*\(|\bt\.(?:Error|Fatal|Fail)|\bshould\b|"
    r"\brequire\.|\bpanic!|\bverify\("
)
SHOWN = 2  # missing lines named per finding


@dataclass(frozen=True)
class Finding:
    path: str
    what: str

    def __str__(self) -> str:
        return f"{self.path}: {self.what}"


def weakened(old: Mapping[str, str], new: Mapping[str, str]) -> list[Finding]:
    """How the tests `new` (path -> text) are weaker than the baseline `old`; [] when not."""
    old_read = {p: read_tests(p, t) for p, t in old.items()}
    new_read = {p: read_tests(p, t) for p, t in new.items()}
    by_name: dict[str, list[tuple[str, Case]]] = {}
    for path, text in new_read.items():
        for case in text.cases:
            by_name.setdefault(case.name, []).append((path, case))
    moved = set(new.values())
    found: list[Finding] = []
    for path in sorted(old_read):
        text = old_read[path]
        if path not in new and old[path] in moved:
            continue  # renamed or moved unchanged
        if not text.cases:
            if path not in new:
                found.append(Finding(path, "test file deleted"))
            elif missing := _missing(text.lines, new_read[path].lines):
                found.append(Finding(path, f"changed: {_describe(missing)}"))
            continue
        for case in text.cases:
            found.extend(_case(path, case, by_name.get(case.name, []), gone=path not in new))
        if path in new:
            loose = _missing(_outside(text), _outside(new_read[path]))
            if asserting := [line for line in loose if _ASSERTION.search(line)]:
                found.append(Finding(path, f"outside the test cases: {_describe(asserting)}"))
    # an added skip first, the refusal's first line (`test.skip(` also changed a case's line)
    return [*_markers(old_read, new_read), *found]


def _case(path: str, case: Case, now: list[tuple[str, Case]], *, gone: bool) -> list[Finding]:
    same = [c for p, c in now if p == path] or [c for _, c in now]
    if not same:
        where = " (the file was deleted)" if gone else ""
        return [Finding(path, f"test `{case.name}` removed{where}")]
    missing = min((_missing(case.lines, c.lines) for c in same), key=len)
    if not missing:
        return []
    return [Finding(path, f"test `{case.name}` changed: {_describe(missing)}")]


def _markers(old: Mapping[str, TestText], new: Mapping[str, TestText]) -> list[Finding]:
    before = Counter(m for text in old.values() for m in text.markers)
    after = Counter(m for text in new.values() for m in text.markers)
    found = []
    for line in (after - before).elements():
        path = next(p for p in sorted(new) if line in new[p].markers)
        found.append(Finding(path, f"adds a skip marker: `{line}`"))
    return found


def _outside(text: TestText) -> list[str]:
    """The lines of a file that belong to none of its cases."""
    inside = Counter(line for case in text.cases for line in case.lines)
    return list((Counter(text.lines) - inside).elements())


def _missing(old: Iterable[str], new: Iterable[str]) -> list[str]:
    """Lines of `old` not in `new` (as many times as they were there), in `old`'s order."""
    left = Counter(old) - Counter(new)
    out = []
    for line in old:
        if left[line] > 0:
            left[line] -= 1
            out.append(line)
    return out


def _describe(missing: list[str]) -> str:
    asserting = [line for line in missing if _ASSERTION.search(line)]
    lines = asserting or missing
    kind = "assertion" if asserting else "line"
    shown = ", ".join(f"`{_short(line)}`" for line in lines[:SHOWN])
    more = f" and {len(missing) - min(SHOWN, len(lines))} more" if len(missing) > SHOWN else ""
    return f"{kind}{'s' if len(lines) > 1 else ''} {shown} removed or changed{more}"


def _short(line: str, width: int = 80) -> str:
    return line if len(line) <= width else line[: width - 1] + "…"
