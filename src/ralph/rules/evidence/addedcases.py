"""Which test cases were added since the run began: the test files as they were at the start
against the same files now, each read as its cases (rules/evidence/testcases.py) (pure).

A case is added when its file is new, or its name is new in its file. A case whose name was
there at the start but whose lines changed counts as added too: its new lines are new test
code, and a test strengthened to cover the change tests the change as well as a new one does
(a change to comments or blank lines only is no change: the lines are compared normalized).
A file whose cases cannot be read (no case headers, or Python that does not parse) adds none.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from ralph.rules.evidence.testcases import read_tests


@dataclass(frozen=True, order=True)
class AddedCase:
    path: str  # the test file, root-relative posix
    name: str  # as rules/evidence/testcases.py names it: "test_x", "Calc.test_x", "adds#2"
    new_file: bool = False  # its file was not there at the start
    changed: bool = False  # its name was there at the start, its lines were not

    def __str__(self) -> str:
        return f"{self.path}::{self.name}"


# folders that hold the tests' own code (helpers, fixtures, data) in the common layouts
TEST_FOLDERS = frozenset({"tests", "test", "spec", "__tests__", "testing", "testdata"})


def beside_tests(path: str) -> bool:
    """Is `path` (not a test file itself) the tests' own code: a file in a tests folder? Such a
    file stays as it is now on the old code: a helper added since the start is not the change
    under test (left out, its import would fail and every test that uses it would seem to
    fail on the old code)."""
    return any(part.lower() in TEST_FOLDERS for part in PurePosixPath(path).parts[:-1])


def added_cases(start: Mapping[str, str], now: Mapping[str, str]) -> tuple[AddedCase, ...]:
    """The cases of the test files `now` (path -> text) that `start` (the same at the start)
    does not have, or has with other lines; sorted by file and name."""
    out: list[AddedCase] = []
    for path, text in now.items():
        cases = read_tests(path, text).cases
        before = start.get(path)
        if before is None:
            out += [AddedCase(path, c.name, new_file=True) for c in cases]
            continue
        old = {c.name: c.lines for c in read_tests(path, before).cases}
        for case in cases:
            if case.name not in old:
                out.append(AddedCase(path, case.name))
            elif old[case.name] != case.lines:
                out.append(AddedCase(path, case.name, changed=True))
    return tuple(sorted(out))
