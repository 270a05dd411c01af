"""Code that reads the tests that call it, read from Python source (pure, `ast`).

The code under test runs in the test runner's process, called by the test. Code that reads
its caller's frame (`sys._getframe`, `inspect.stack`, `f_back`, `f_locals`, a traceback's
`tb_frame`, `sys.settrace`), its caller's source (`inspect.getsource`, `linecache`,
`traceback.extract_stack`), or finds the tests through the garbage collector
(`gc.get_referrers`) can return what the calling assertion expects: it passes any test, a
sealed one included, without doing the work. Code that raises the runner's skip
(`unittest.SkipTest`, `pytest.skip`) turns a test it would fail into one that did not run.
Code that names a test file of the project (`test_calc.py`, `tests.test_calc`) can tell the
sealed run, which holds no test file but the sealed ones, from the others.

A static reading finds the plain forms, names spelt out in the code or in a string
(`getattr(sys, "_getframe")`); code built at run time (`exec`, names put together or
encoded) hides from it. Ordinary introspection (`inspect.signature`, `inspect.isclass`,
`logging`, `warnings.warn(stacklevel=2)`) is none of this.
"""

from __future__ import annotations

import ast
import posixpath
import re
from collections.abc import Iterable

from ralph.rules.evidence.harnesspatch import dotted, imported_names

READS = "reads its callers' frames or source"
SKIPS = "skips the test that calls it"
NAMES = "names a test file of the project"

CALLS = {
    **dict.fromkeys(
        (
            "sys._getframe",
            "sys._getframemodulename",
            "sys.settrace",
            "sys.setprofile",
            "sys.monitoring",
            "threading.settrace",
            "threading.setprofile",
            "inspect.currentframe",
            "inspect.stack",
            "inspect.trace",
            "inspect.getouterframes",
            "inspect.getinnerframes",
            "inspect.getframeinfo",
            "inspect.getsource",
            "inspect.getsourcelines",
            "inspect.getsourcefile",
            "inspect.findsource",
            "inspect.getcomments",
            "inspect.getblock",
            "traceback.extract_stack",
            "traceback.walk_stack",
            "traceback.format_stack",
            "traceback.print_stack",
            "traceback.StackSummary",
            "gc.get_referrers",
            "gc.get_referents",
            "gc.get_objects",
            "linecache",
            "logging.currentframe",
        ),
        READS,
    ),
    **dict.fromkeys(
        (
            "unittest.SkipTest",
            "unittest.case.SkipTest",
            "unittest.skip",
            "pytest.skip",
            "pytest.xfail",
            "pytest.importorskip",
            "_pytest.outcomes.skip",
            "_pytest.outcomes.xfail",
        ),
        SKIPS,
    ),
}
# attributes of a frame, a traceback, a generator or a coroutine that lead to the caller
ATTRIBUTES = frozenset(
    {"f_back", "f_locals", "f_globals", "f_code", "tb_frame", "gi_frame", "cr_frame", "ag_frame"}
)
# a string that is one of these names reaches them by `getattr` or `__import__`
SPELT = frozenset(
    {name.rsplit(".", 1)[-1] for name, why in CALLS.items() if why == READS} - {"stack", "trace"}
    | ATTRIBUTES
)
_PARTS = re.compile(r"[/\\.:]")


def caller_reads(source: str, test_names: Iterable[str] = ()) -> list[tuple[int, str]]:
    """(line, what) for each place where `source` reads or steers the tests that call it;
    `test_names`: the project's test files (root-relative paths), which the code names at
    its peril. [] when it does not parse (not Python: the test run fails on it anyway)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names = imported_names(tree)
    named = _test_words(test_names)
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        line = getattr(node, "lineno", 0)
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            for full in _imported(node):
                why = _matches(full)
                if why is not None:
                    found.append((line, f"{why}: it imports `{full}`"))
        elif isinstance(node, (ast.Name, ast.Attribute)):
            used = dotted(node, names)
            why = _matches(used) if used is not None else None
            if why is not None:
                found.append((line, f"{why}: it uses `{used}`"))
            elif isinstance(node, ast.Attribute) and node.attr in ATTRIBUTES:
                found.append((line, f"{READS}: it reads `.{node.attr}`"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            text = node.value
            if text in SPELT:
                found.append((line, f"{READS}: it spells out `{text}`"))
            elif named and any(w in named for w in _PARTS.split(text)):
                found.append((line, f"{NAMES}: {text!r}"))
    return sorted(set(found))


def _imported(node: ast.Import | ast.ImportFrom) -> list[str]:
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if node.level or not node.module:
        return []
    return [f"{node.module}.{alias.name}" for alias in node.names]


def _matches(full: str) -> str | None:
    """Why the dotted name `full` (or a name it is part of) is one of CALLS, if it is."""
    for name, why in CALLS.items():
        if full == name or full.startswith(name + "."):
            return why
    return None


def _test_words(paths: Iterable[str]) -> frozenset[str]:
    """The words that name a test file: its file name, and its name as a module ("conftest"
    names no particular test: the project's own code may know the word)."""
    out: set[str] = set()
    for path in paths:
        name = posixpath.basename(path)
        stem = name.rsplit(".", 1)[0]
        if stem and stem != "conftest":
            out.add(stem)
    return frozenset(out)
