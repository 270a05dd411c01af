"""A pip requirements file read as ralph reads it (pure): each line a dependency by name, a
source (a path, a URL, a find-links or index line: rules/environment/declarations.py), a file it
includes
(`-r`, `-c`), a harmless option passed on, or a line ralph does not understand, said."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable
from dataclasses import dataclass

from ralph.rules.environment.declarations import (
    REQUIREMENT_NAME,
    Declaration,
    Source,
    local_path,
    looks_local,
)

MAX_INCLUDES = 8  # -r/-c nesting deeper than this is not a project's, it is a loop
# options that only narrow what is installed from the person's own index
_HARMLESS = ("--pre", "--prefer-binary", "--only-binary", "--no-binary", "--require-hashes")
_SOURCE_OPTIONS = {
    "-f": "find-links",
    "--find-links": "find-links",
    "-i": "index-url",
    "--index-url": "index-url",
    "--extra-index-url": "extra-index-url",
    "--no-index": "no-index",
    "--trusted-host": "trusted-host",
}


def _logical_lines(text: str) -> Iterable[str]:
    """A requirements file's lines, continuations joined and comments gone."""
    pending = ""
    for raw in text.splitlines():
        line = pending + raw
        if line.endswith("\\"):
            pending = line[:-1]
            continue
        pending = ""
        line = re.sub(r"(^|\s)#.*$", "", line).strip()
        if line:
            yield line
    if pending.strip():
        yield pending.strip()


def _split_option(line: str) -> tuple[str, str]:
    """`-r x.txt`, `-rx.txt`, `--requirement=x.txt` -> ("-r"/"--requirement", "x.txt")."""
    if line.startswith("--"):
        head, sep, rest = line.partition("=")
        if not sep:
            head, _, rest = line.partition(" ")
        return head.strip(), rest.strip()
    return line[:2], line[2:].strip()


def is_project(target: str, here: str) -> bool:
    """Does a requirement `target`, in a file of the folder `here`, name the project itself
    (`.`, `./`, `.[dev]` at the root; `..` from `requirements/`)?"""
    path = re.sub(r"\[[^\]]*\]$", "", target.strip())
    path = re.sub(r"^file:(//)?", "", path)
    if not path.startswith(".") or "/" in path.rstrip("/").lstrip("./"):
        return False
    return posixpath.normpath(posixpath.join(here, path)) == "."


@dataclass(frozen=True)
class Include:
    """A requirements file the file being read includes: read it too, as requirements or
    constraints."""

    path: str  # tree-relative, or None-like "" when it leaves the tree
    constraint: bool


def read_requirements(
    text: str, name: str, out: Declaration, *, constraint: bool = False
) -> list[Include]:
    """Add what `text` (the file `name`, tree-relative) declares to `out`; the files it
    includes, for the caller to read (it holds the I/O)."""
    here = posixpath.dirname(name)
    includes: list[Include] = []
    target = out.constraints if constraint else out.requirements
    for line in _logical_lines(text):
        if line.startswith("-") and not line.startswith(("-e", "--editable")):
            option, value = _split_option(line)
            if option in ("-r", "--requirement", "-c", "--constraint"):
                path = local_path(value, here)
                if path is None:
                    out.unread.append(f"{name}: {line} (an include outside the tree)")
                else:
                    includes.append(Include(path, constraint or option in ("-c", "--constraint")))
                continue
            if option in _SOURCE_OPTIONS:
                path = local_path(value, here) if option in ("-f", "--find-links") else None
                paths = (path,) if path is not None else ()
                out.sources.append(Source(name, line, paths, _SOURCE_OPTIONS[option]))
                continue
            if option in _HARMLESS or line.split()[0] in _HARMLESS:
                out.options.append(line)
                continue
            out.unread.append(f"{name}: {line} (an option ralph does not pass to the installer)")
            continue
        editable = line.startswith(("-e", "--editable"))
        req = _split_option(line)[1] if editable else line
        if is_project(req, here):  # its own dependencies are read, every extra with them
            continue
        if looks_local(req) or editable:
            path = local_path(req.split("@", 1)[-1].strip() if "@" in req else req, here)
            kind = "constraint" if constraint else None
            out.sources.append(Source(name, line, (path,) if path else (), kind))
            continue
        if REQUIREMENT_NAME.match(req) is None:
            out.unread.append(f"{name}: {line} (not a requirement ralph can read)")
            continue
        target.append(req)
    return includes
