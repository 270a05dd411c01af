"""The outcome of each added test case, read from a JUnit XML report's testcases (pure).

pytest names a case by `classname` (its file as a dotted module, relative to pytest's rootdir,
then its class) and `name` (the function, with `[params]` when parametrized); other runners
put the case's title in `name` (jest: "describe title"; cargo: "tests::name") and sometimes its
file in `file`. A case matches every testcase of its file (when the report says the file)
whose name is its own; a parametrized case fails when any of its parameters fails. A file
that pytest could not collect (`classname=""`, the module as `name`, an error) fails all its
cases.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePosixPath
from typing import Literal

from ralph.rules.evidence.addedcases import AddedCase

Outcome = Literal["passed", "failed", "skipped", "missing"]
_SEPARATORS = (" ", ".", "::", "/", " > ", "#")


@dataclass(frozen=True)
class JCase:
    """One `<testcase>` of a report."""

    classname: str
    name: str
    file: str | None
    outcome: Literal["passed", "failed", "skipped"]  # an error is a failure


def outcomes(added: Sequence[AddedCase], report: Iterable[JCase]) -> dict[AddedCase, Outcome]:
    """Each added case's outcome in `report`: failed when one of its testcases failed (or its
    file was not collected), passed when all passed, skipped when none ran, missing when the
    report does not name it."""
    cases = list(report)
    broken = [c for c in cases if not c.classname and c.outcome == "failed"]
    out: dict[AddedCase, Outcome] = {}
    for case in added:
        if any(_module_is(case.path, c.name, c.file) for c in broken):
            out[case] = "failed"
            continue
        out[case] = _merge([c.outcome for c in cases if c not in broken and _matches(case, c)])
    return out


def _merge(found: Sequence[str]) -> Outcome:
    if not found:
        return "missing"
    if "failed" in found:
        return "failed"
    return "passed" if "passed" in found else "skipped"


def _matches(case: AddedCase, jc: JCase) -> bool:
    if jc.file is not None and not _same_file(case.path, jc.file):
        return False
    if PurePosixPath(case.path).suffix == ".py":
        return _python(case, jc)
    name = case.name.split("#")[0]  # rules/testcases numbers repeated titles: "adds#2"
    full = f"{jc.classname} {jc.name}".strip()
    return any(
        candidate == name or candidate.endswith(tuple(s + name for s in _SEPARATORS))
        for candidate in (jc.name, full)
    )


def _python(case: AddedCase, jc: JCase) -> bool:
    """pytest: `classname` is the module (and class), `name` the function and its params."""
    owner, _, func = case.name.rpartition(".")
    if jc.name.split("[")[0] != func:
        return False
    module = _dotted(case.path)
    wanted = f"{module}.{owner}" if owner else module
    # the classname is relative to pytest's rootdir: a suffix of the module's dotted path
    return bool(jc.classname) and (wanted == jc.classname or wanted.endswith("." + jc.classname))


def _module_is(path: str, name: str, file: str | None) -> bool:
    """Is the not-collected module `name` (dotted, or a path) the file `path`?"""
    if file is not None:
        return _same_file(path, file)
    for form in (_dotted(path), path):
        sep = "." if form != path else "/"
        if name == form or form.endswith(sep + name):
            return True
    return False


def _dotted(path: str) -> str:
    return str(PurePosixPath(path).with_suffix("")).replace("/", ".")


def _same_file(path: str, file: str) -> bool:
    file = file.replace("\\", "/").removeprefix("./")
    return path == file or path.endswith("/" + file)
