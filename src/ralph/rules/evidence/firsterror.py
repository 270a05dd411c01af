"""A failed check's own first error line, picked from its output (pure): what a person and the
agent read first about a refused DONE, beside ralph's "exit code 1, expected 0".

What explains the most wins, the earliest of a kind first: a module the code imports and
cannot find (it fails every test after it); a failing test named with its message (pytest's
`FAILED x - msg`, unittest's `FAIL: name` and its exception, TAP's `not ok` and its YAML
message, jest's `●`, vitest's `FAIL`, go's `--- FAIL` or a Rust panic and the line after);
an exception's line (`XError: msg`, a traceback's
last line, also inside TAP comments where `node --test` puts a test file's stderr); pytest's
`E ` lines; a failing test named alone; a generic `error:`/`not found` line; at last the last
line that is not a runner's wrapper noise.
"""

from __future__ import annotations

import re
from collections.abc import Callable

ERROR_CHARS = 240  # the longest error line kept

_MISSING = re.compile(
    r"No module named '(?P<py>[^']+)'|Cannot find (?:module|package) '(?P<js>[^']+)'"
)
_EXCEPTION = re.compile(
    r"^(?:[A-Za-z_][\w.]*\.)?(?:[A-Z]\w*)?(?:Error|Exception|Failure)(?: \[[\w-]+\])?: \S"
)
_PYTEST = re.compile(r"^(?:FAILED|ERROR) \S+(?P<msg> - .+)?$")
_UNITTEST = re.compile(r"^(?:FAIL|ERROR): \S.*$")
_TAP = re.compile(r"^not ok \d+\b(?! .*# (?:TODO|SKIP))")
# a failing test named, its message on the next line: jest's `●`, vitest's `FAIL f > test`, go's
# `--- FAIL: TestX`, a Rust test's panic
_NAMED_NEXT = re.compile(
    r"^(?:● (?!Test suite failed to run)\S|FAIL\s+\S.* > \S|thread '.+' .*panicked at )"
)
_GO = re.compile(r"^--- FAIL: \S")
_GO_SAID = re.compile(r"^\S+\.go:\d+: ")  # under `go test` without -v, the next line
_GENERIC = re.compile(r"(?i)\berror\b\s*[:!]|\bfatal\b:|not found|no such file|denied")
# a runner's own wrapper around the failure: never the line that says why
_NOISE = re.compile(
    r"^(?:npm (?:ERR!|error)|make(?:\[\d+\])?: \*\*\*|Node\.js v\d|#\s*$"
    r"|[=_!*]{3,}|-{3,}(?! FAIL:))|ELIFECYCLE"
)
QUOTES = "'\""
_DIFF_LEGEND = "+ actual - expected"  # node's assert: the lines after it are a diff
_PREFIX = re.compile(r"^(?:E\s+|#\s+)")  # pytest's `E   `, a TAP comment's `# `
_UNIQUE, _NAMED, _RAISED, _ASSERTED, _NAMED_ONLY, _GENERIC_RANK = range(6)


def first_error(output: str) -> str | None:
    """The line of `output` that says best why its command failed (see the module), cut to
    ERROR_CHARS; None when the output has no line."""
    lines = output.splitlines()
    best: tuple[int, str] | None = None
    for i, raw in enumerate(lines):
        found = _classify(lines, i, raw.strip())
        if found is not None and (best is None or found[0] < best[0]):
            best = found
            if best[0] == _UNIQUE:
                break
    if best is None:
        last = [s for line in lines if (s := line.strip()) and not _NOISE.search(s)]
        if not last:
            return None
        best = (_GENERIC_RANK + 1, last[-1])
    return _bounded(best[1])


def with_error(summary: str, error: str | None) -> str:
    """A failed check's summary and its command's first error line, as every view shows them."""
    return f"{summary}; error: {error}" if error else summary


def missing_module(line: str) -> str | None:
    """The package a "No module named 'x'" / "Cannot find module 'x'" line names (its top
    level: `a` of `a.b`, `@s/p` of `@s/p/q`); None for another line or a relative path."""
    found = _MISSING.search(line)
    if found is None:
        return None
    if found["py"] is not None:
        return found["py"].split(".")[0] or None
    name = found["js"]
    if name.startswith((".", "/")) or ":" in name:  # a file of the project, `node:fs`
        return None
    parts = name.split("/")
    return "/".join(parts[:2]) if name.startswith("@") and len(parts) > 1 else parts[0]


def _classify(lines: list[str], i: int, line: str) -> tuple[int, str] | None:
    if not line or _NOISE.search(line):
        return None
    bare = _PREFIX.sub("", line)
    if _MISSING.search(bare):
        return _UNIQUE, bare
    if m := _PYTEST.match(line):  # its message cut to the terminal's width says less than E
        return (_NAMED if m["msg"] and not line.endswith("...") else _NAMED_ONLY), line
    if _UNITTEST.match(line):
        raised = _next(lines, i, lambda s: _EXCEPTION.match(s) is not None, stop="=" * 10)
        return (_NAMED, _joined(line, raised)) if raised else (_NAMED_ONLY, line)
    if _TAP.match(line):
        said = _tap_message(lines, i)
        return (_NAMED, _joined(line, said)) if said else (_NAMED_ONLY, line)
    if _NAMED_NEXT.match(line) or _GO.match(line):
        wanted = (lambda s: _GO_SAID.match(s) is not None) if _GO.match(line) else bool
        said = _next(lines, i, wanted, stop=(line[:3], "=== RUN"))
        return (_NAMED, _joined(line, said)) if said else (_NAMED_ONLY, line)
    if _EXCEPTION.match(bare):
        return _RAISED, bare
    if line.startswith("E ") and bare:
        return _ASSERTED, bare
    if _GENERIC.search(line):
        return _GENERIC_RANK, line
    return None


def _next(
    lines: list[str], i: int, wanted: Callable[[str], bool], *, stop: str | tuple[str, ...]
) -> str | None:
    """The first line after `i` that `wanted` accepts, before a line starting with `stop`."""
    for raw in lines[i + 1 : i + 40]:
        line = raw.strip()
        if line.startswith(stop):
            return None
        if line and wanted(line):
            return line
    return None


def _tap_message(lines: list[str], i: int) -> str | None:
    """What the YAML block under a TAP `not ok` says: its `message:` or `error:` (node's
    "test failed" of a whole file says nothing: the file's stderr, in comments above, does),
    else its `expected:` and `actual:` (tape). node's diff of two values (`+ actual -
    expected`, then `+ '3 cat'` / `- '3 cats'`) reads as its first line and the two values."""
    block: list[str] = []
    for raw in lines[i + 1 : i + 200]:
        if not raw.startswith((" ", "\t")) or raw.strip() == "...":
            break
        block.append(raw)
    keys: dict[str, str] = {}  # plain values as written, quotes kept
    scalars: dict[str, list[str]] = {}  # block scalars, line by line
    for j, raw in enumerate(block):
        key, sep, value = raw.strip().partition(":")
        if not sep or key not in ("message", "error", "expected", "actual") or key in keys:
            continue
        value = value.strip()
        if value in ("|", "|-", ">", ">-"):  # a block scalar: its lines, more indented
            scalars[key] = _scalar(block[j + 1 :], len(raw) - len(raw.lstrip()))
            value = " ".join(scalars[key])
        keys[key] = value
    which = "message" if keys.get("message") else "error"
    said, expected, actual = keys.get(which), keys.get("expected"), keys.get("actual")
    if said and said.strip(QUOTES) != "test failed":
        diff = scalars.get(which)
        if diff is None:
            return said.strip(QUOTES)
        if _DIFF_LEGEND in diff and expected and actual:  # two plain values: say them
            return f"{diff[0]} actual {actual}, expected {expected}"
        return said
    if expected and actual:
        return f"expected: {expected.strip(QUOTES)}, actual: {actual.strip(QUOTES)}"
    return None


def _scalar(lines: list[str], depth: int) -> list[str]:
    """The first lines of a YAML block scalar: those indented deeper than its key (a line of
    carets under a diff points at a column, and says nothing)."""
    out: list[str] = []
    for raw in lines[:40]:
        if raw.strip() and len(raw) - len(raw.lstrip()) <= depth:
            break
        if raw.strip() and raw.strip("^ \t"):
            out.append(raw.strip())
    return out[:16]


def _joined(line: str, said: str) -> str:
    return f"{line} {said}" if line.endswith(":") else f"{line}: {said}"


def _bounded(line: str) -> str:
    line = " ".join(line.split())
    return line if len(line) <= ERROR_CHARS else line[: ERROR_CHARS - 2].rstrip() + " …"
