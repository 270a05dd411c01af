"""The test-steering part of a mixed configuration file, and putting the person's back (pure).

`pyproject.toml` steers the tests in its `[tool.pytest...]`, `[tool.tox...]` and
`[tool.hatch.envs.<env>.scripts]` tables, `setup.cfg` in its `[tool:pytest]` and tox
sections, `package.json` in its `scripts` and `jest`/`mocha`/`ava`/`vitest` keys; the rest of
those files (a dependency, the package's metadata) is the agent's to change. `merge` gives the
file as the agent left it with the steering part as the person had it: TOML tables and INI
sections by their header lines (comments, CRLF and the rest kept byte for byte), JSON by its
keys. A TOML result is parsed back and checked; whatever the line reading could miss (a
steering key written as a dotted key, a header inside a multi-line string) makes the result
the person's whole file.
"""

from __future__ import annotations

import configparser
import json
import re
import sys
from collections.abc import Callable
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PACKAGE_KEYS = ("scripts", "jest", "mocha", "ava", "vitest")
TOML_HEADER = re.compile(r"^[ \t]*\[\[?(?P<name>[^\]\r\n]*)\]")
INI_HEADER = re.compile(r"^[ \t]*\[")
BARE = re.compile(r"[A-Za-z0-9_-]+")
Chunk = tuple[str | None, str]  # (the header's name, or None before the first; its text)


def merge(name: str, base: str | None, now: str) -> str | None:
    """The mixed file `name` (a file name) as `now`, with the steering part as `base` had it
    (None: the person had no such file, so it has none). None: the file is left out (the
    person had none and the agent's steers the tests in a way the lines do not show)."""
    if name == "package.json":
        return _merge_json(base, now)
    toml = name == "pyproject.toml"
    chunks, steers, parsed = (
        (_toml_chunks, _toml_steers, _toml_steering)
        if toml
        else (_ini_chunks, _ini_steers, _ini_steering)
    )
    merged = _merge_lines(base or "", now, chunks, steers)
    if parsed(merged) == parsed(base or ""):
        return merged
    return base  # the person's whole file (or none)


def steering(name: str, text: str) -> str:
    """The steering part of the mixed file `name`, as text (to show and compare)."""
    if name == "package.json":
        try:
            data = json.loads(text)
        except ValueError:
            return text
        if not isinstance(data, dict):
            return text
        keys = {k: data[k] for k in PACKAGE_KEYS if k in data}
        return json.dumps(keys, indent=2, ensure_ascii=False) + "\n" if keys else ""
    chunks, steers = (
        (_toml_chunks, _toml_steers) if name == "pyproject.toml" else (_ini_chunks, _ini_steers)
    )
    return "".join(text for head, text in chunks(text) if head is not None and steers(head))


def _merge_lines(
    base: str,
    now: str,
    chunks: Callable[[str], list[Chunk]],
    steers: Callable[[str], bool],
) -> str:
    """`now` without its steering chunks and with `base`'s, where `now`'s first one was (or at
    the end)."""
    mine = [text for head, text in chunks(base) if head is not None and steers(head)]
    out: list[str] = []
    placed = False
    for head, text in chunks(now):
        if head is not None and steers(head):
            if not placed:
                out += mine
                placed = True
            continue
        out.append(text)
    if not placed:
        out += mine
    joined = ""
    for text in out:
        if joined and not joined.endswith("\n"):
            joined += "\r\n" if "\r\n" in now else "\n"
        joined += text
    return joined


def _split(text: str, header: Callable[[str], str | None]) -> list[Chunk]:
    out: list[Chunk] = [(None, "")]
    for line in text.splitlines(keepends=True):
        name = header(line)
        if name is not None:
            out.append((name, line))
        else:
            head, body = out[-1]
            out[-1] = (head, body + line)
    return [c for c in out if c[0] is not None or c[1]]


def _toml_chunks(text: str) -> list[Chunk]:
    def header(line: str) -> str | None:
        found = TOML_HEADER.match(line)
        return None if found is None else found["name"]

    return _split(text, header)


def _toml_key(name: str) -> list[str]:
    """A TOML table name's keys (quotes and the spaces around dots gone; lower case)."""
    parts: list[str] = []
    for raw in re.findall(r'"(?:[^"\\]|\\.)*"|\'[^\']*\'|[^.]+', name):
        part = raw.strip()
        if part[:1] in "\"'":
            part = part[1:-1]
        parts.append(part.strip().lower())
    return parts


def _toml_steers(name: str) -> bool:
    keys = _toml_key(name)
    if keys[:2] in (["tool", "pytest"], ["tool", "tox"]):
        return True
    return keys[:3] == ["tool", "hatch", "envs"] and len(keys) >= 5 and keys[4] == "scripts"


def _toml_steering(text: str) -> object:
    """What steers the tests in a pyproject.toml, read as TOML (None: it does not parse)."""
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return None
    tool = data.get("tool")
    tool = tool if isinstance(tool, dict) else {}
    hatch = tool.get("hatch")
    envs = hatch.get("envs") if isinstance(hatch, dict) else None
    scripts = {
        env: value.get("scripts")
        for env, value in (envs.items() if isinstance(envs, dict) else ())
        if isinstance(value, dict) and "scripts" in value
    }
    return {"pytest": tool.get("pytest"), "tox": tool.get("tox"), "hatch": scripts}


def _ini_chunks(text: str) -> list[Chunk]:
    def header(line: str) -> str | None:
        if not INI_HEADER.match(line) or "]" not in line:
            return None
        return line.strip()  # the name is read generously by `_ini_steers`

    return _split(text, header)


def _ini_steers(header: str) -> bool:
    """Does a section header line steer the tests? Every reading a parser may make of it
    counts (up to the first `]` or the last one): pytest's and tox's differ."""
    inside = header.strip()[1:]
    names = {inside[:i] for i, c in enumerate(inside) if c == "]"}
    return any(_ini_name_steers(n.strip().lower()) for n in names)


def _ini_name_steers(name: str) -> bool:
    return name in ("tool:pytest", "pytest", "tox") or name.startswith(("tox:", "testenv"))


def _ini_steering(text: str) -> object:
    """The steering sections of a setup.cfg as an INI parser reads them (None: it does not
    parse)."""
    parser = configparser.RawConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    try:
        parser.read_string(text)
    except configparser.Error:
        return None
    return {
        s: dict(parser.items(s)) for s in parser.sections() if _ini_name_steers(s.strip().lower())
    }


def _merge_json(base: str | None, now: str) -> str:
    old = _json_object(base) if base is not None else {}
    new = _json_object(now)
    if old is None:  # the person's own file does not parse: theirs, whole
        return base if base is not None else now
    if new is None:  # the agent broke it: the person's
        return base if base is not None else now
    out = dict(new)
    for key in PACKAGE_KEYS:
        if key in old:
            out[key] = old[key]
        else:
            out.pop(key, None)
    if out == new and list(out) == list(new):
        return now
    return json.dumps(out, indent=2, ensure_ascii=False) + "\n"


def _json_object(text: str) -> dict[str, Any] | None:
    try:
        data = json.loads(text)
    except ValueError:
        return None
    return data if isinstance(data, dict) else None
