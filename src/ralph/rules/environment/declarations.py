"""What a Python tree declares it needs, read from its own files (pure: text in, values out).

ralph builds the checks' environment from this value, never from the files themselves: uv is
handed a requirements list ralph wrote, so nothing in the tree can point it elsewhere (an
include that is a named pipe, a `uv.toml` with a `target`, a `[tool.uv.sources]` path). Each
line is one of three things:

- a dependency by name (`isodate>=0.6`): taken from the person's index, as a CI job would;
- a **source** (a path or file URL, a wheel in the tree, a direct URL, `-f`/`-i` lines, a
  `[tool.uv.sources]` entry, package-manager settings in the tree): it changes where packages
  come from, so it is the person's to accept (store/environments/pkgsources.py), and is named in
  one line;
- a line ralph does not understand: said, never silently dropped.

A line naming the project itself (`.`, `-e .[dev]`) is the project: its own declared
dependencies (and those extras) are read instead; the room makes its code importable.
"""

from __future__ import annotations

import configparser
import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

REQUIREMENT_NAME = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)\s*(\[[^\]]*\])?")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")
# package-manager settings in the tree: a person's, or a source no person accepted
SETTINGS_FILES = ("uv.toml", "pip.conf", "pip.ini")
# `[tool.uv]` keys that say where packages come from or which are taken
UV_SOURCE_KEYS = frozenset(
    (
        "index",
        "index-url",
        "extra-index-url",
        "find-links",
        "no-index",
        "index-strategy",
        "override-dependencies",
        "constraint-dependencies",
        "pip",
        "cache-dir",
        "keyring-provider",
        "allow-insecure-host",
    )
)


@dataclass(frozen=True)
class Source:
    """A line that says where packages come from: which file, what it says, and the files of
    the tree it names (artifacts: their hashes are part of it)."""

    file: str
    line: str
    paths: tuple[str, ...] = ()  # tree-relative paths it names (a wheel, a folder of them)
    option: str | None = None  # find-links, index-url, constraint ... (None: a requirement)

    def describe(self) -> str:
        return f"{self.file}: {self.line}"


@dataclass
class Declaration:
    """Everything the tree declares, in the order it was read."""

    requirements: list[str] = field(default_factory=list)
    constraints: list[str] = field(default_factory=list)
    options: list[str] = field(default_factory=list)  # harmless global options, verbatim
    sources: list[Source] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)  # "file: why", said, not ignored
    includes: list[str] = field(default_factory=list)  # every file read, tree-relative
    own: set[str] = field(default_factory=set)  # the project's own names (normalized)

    def installable(self) -> list[str]:
        """The requirements to install: all but the project's own (`mylib[test]` names the
        project itself, whose every extra is read already; its code is the room's)."""
        return [r for r in self.requirements if normal(_name(r)) not in self.own]

    def canonical(self) -> list[Any]:
        return [
            self.requirements,
            self.constraints,
            self.options,
            [[s.file, s.line, list(s.paths), s.option] for s in self.sources],
            self.unread,
            self.includes,
        ]


def local_path(target: str, here: str) -> str | None:
    """The tree-relative path a requirement names, or None when it names none in the tree
    (a URL, or a path that leaves the tree: a source all the same)."""
    path = target
    if (_URL.match(path) and not path.startswith("file:")) or path.startswith("git+"):
        return None  # a URL: fetched from where it says, none of the tree's files
    if path.startswith("file:"):
        path = re.sub(r"^file:(//)?", "", path)
    path = path.split("#", 1)[0].split(";", 1)[0].strip()
    path = re.sub(r"\[[^\]]*\]$", "", path)
    if not path or path.startswith("/"):
        return None
    joined = posixpath.normpath(posixpath.join(here, path))
    return None if joined == ".." or joined.startswith("../") else joined


def looks_local(target: str) -> bool:
    """Is a requirement a path or URL rather than a name?"""
    t = target.strip()
    return bool(
        t.startswith((".", "/", "~", "file:"))
        or _URL.match(t)
        or t.endswith((".whl", ".tar.gz", ".zip", ".tar.bz2", ".tgz"))
        or "/" in t.split(";")[0].split("@")[0]
        or " @ " in t
        or re.match(r"^[A-Za-z0-9._-]+(\[[^\]]*\])?\s*@", t) is not None
    )


def read_pyproject(data: Mapping[str, Any], name: str, out: Declaration) -> None:
    """Add what a parsed `pyproject.toml` declares: `[project]` dependencies and every
    optional one, every `[dependency-groups]` group; `[tool.uv]` sources and index settings
    as sources."""
    project = data.get("project")
    if isinstance(project, Mapping):
        if isinstance(project.get("name"), str):
            out.own.add(normal(project["name"]))
        deps = project.get("dependencies")
        if isinstance(deps, list):
            _strings(deps, name, "[project] dependencies", out)
        elif "dependencies" in (project.get("dynamic") or ()):
            out.unread.append(
                f"{name}: [project] dependencies are dynamic (computed by the build): declare "
                "them in [project], setup.cfg or requirements*.txt"
            )
        optional = project.get("optional-dependencies")
        if isinstance(optional, Mapping):
            for extra, deps in optional.items():
                if isinstance(deps, list):
                    _strings(deps, name, f"[project.optional-dependencies] {extra}", out)
    groups = data.get("dependency-groups")
    if isinstance(groups, Mapping):
        for group, deps in groups.items():
            if not isinstance(deps, list):
                out.unread.append(f"{name}: [dependency-groups] {group} (not a list)")
                continue
            plain = [d for d in deps if isinstance(d, str)]
            _strings(plain, name, f"[dependency-groups] {group}", out)
            # {include-group = "x"}: its group is read in turn, once, by the loop above
    tool = data.get("tool")
    uv = tool.get("uv") if isinstance(tool, Mapping) else None
    if isinstance(uv, Mapping):
        for package, spec in (uv.get("sources") or {}).items():
            path = spec.get("path") if isinstance(spec, Mapping) else None
            found = [posixpath.normpath(path)] if isinstance(path, str) else []
            paths = tuple(p for p in found if not p.startswith(("../", "/")) and p != "..")
            out.sources.append(Source(name, f"[tool.uv.sources] {package} = {inline(spec)}", paths))
        for key in sorted(set(uv) & UV_SOURCE_KEYS):
            out.sources.append(Source(name, f"[tool.uv] {key} = {inline(uv[key])}"))
        dev = uv.get("dev-dependencies")
        if isinstance(dev, list):
            _strings(dev, name, "[tool.uv] dev-dependencies", out)
    poetry = tool.get("poetry") if isinstance(tool, Mapping) else None
    if isinstance(poetry, Mapping) and "dependencies" in poetry:
        out.unread.append(
            f"{name}: [tool.poetry.dependencies] is Poetry's own format: declare them in "
            "[project] or requirements*.txt"
        )


def read_setup_cfg(text: str, name: str, out: Declaration) -> None:
    """Add what `setup.cfg` declares: `[options] install_requires` and `tests_require`, and
    every `[options.extras_require]` entry."""
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text, source=name)
    except configparser.Error as exc:
        out.unread.append(f"{name}: {str(exc).splitlines()[0]}")
        return
    if parser.has_option("metadata", "name"):
        out.own.add(normal(parser.get("metadata", "name")))
    for key in ("install_requires", "tests_require"):  # what the code and its tests import
        if parser.has_option("options", key):
            _lines(parser.get("options", key), name, key, out)
    if parser.has_section("options.extras_require"):
        for extra, value in parser.items("options.extras_require"):
            _lines(value, name, f"extras_require {extra}", out)


def _lines(value: str, name: str, where: str, out: Declaration) -> None:
    if value.strip().startswith(("file:", "attr:")):
        out.unread.append(f"{name}: {where} = {value.strip()} (ralph does not follow it)")
        return
    items = [v.strip() for v in re.split(r"[\n]", value) if v.strip()]
    _strings([i for i in items if not i.startswith("#")], name, where, out)


def _strings(items: list[Any], name: str, where: str, out: Declaration) -> None:
    for item in items:
        if not isinstance(item, str):
            continue
        req = item.strip()
        if looks_local(req):
            path = req.split("@", 1)[-1].strip() if "@" in req else req
            local = local_path(path, "")
            out.sources.append(Source(name, f"{where}: {req}", (local,) if local else ()))
        elif REQUIREMENT_NAME.match(req) is None:
            out.unread.append(f"{name}: {where}: {req} (not a requirement ralph can read)")
        else:
            out.requirements.append(req)


def inline(value: Any) -> str:
    """A TOML or JSON value as one line of text."""
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{k} = {inline(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ", ".join(inline(v) for v in value) + "]"
    return repr(value) if isinstance(value, str) else str(value)


def normal(name: str) -> str:
    """A distribution's name as its index compares it (PEP 503)."""
    return re.sub(r"[-_.]+", "-", name).lower()


def _name(requirement: str) -> str:
    found = REQUIREMENT_NAME.match(requirement)
    return found[1] if found is not None else requirement
