"""What a Node tree declares it needs, read from `package.json` and npm's lockfile (pure: parsed
JSON in, values out).

ralph builds the checks' `node_modules` with `npm ci` from these files, copied into a folder of
its own (store/environments/nodebuild.py). What is named like a CI job would take it (a version
range of a
package from the person's registry) needs no one's say; a **source** changes where packages
come from, so it is the person's to accept, like Python's (rules/environment/declarations.py):

- a dependency spec that is not a registry range: `file:`, `link:`, `git+…`, `github:`,
  `user/repo`, an `http(s)://` tarball, `workspace:`, a path;
- a lockfile entry fetched from elsewhere than the person's registry (its `resolved`), or
  linked to a folder (`link: true`);
- an `.npmrc` in the tree (its settings: a registry, a cache, scripts).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ralph.rules.environment.declarations import Source, inline
from ralph.rules.environment.declares import PACKAGE_TABLES

PACKAGE_JSON = "package.json"
LOCKFILES = ("npm-shrinkwrap.json", "package-lock.json")  # npm's order: the shrinkwrap wins
OTHER_LOCKS = ("yarn.lock", "pnpm-lock.yaml")  # lockfiles ralph does not build from
NPMRC = ".npmrc"
# what of package.json `npm ci` reads besides the lockfile: all ralph copies of it
MANIFEST_FIELDS = ("name", "version", *PACKAGE_TABLES, "overrides")
_PROTOCOL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
_TARBALL = (".tgz", ".tar.gz", ".tar")


@dataclass
class NodeDeclaration:
    """What `package.json` and the lockfile declare: the part of package.json `npm ci` reads,
    the lockfile's name, the sources, and what could not be read (said, not ignored)."""

    manifest: dict[str, Any] = field(default_factory=dict)
    lockfile: str | None = None
    sources: list[Source] = field(default_factory=list)
    unread: list[str] = field(default_factory=list)

    @property
    def dependencies(self) -> bool:
        """Does package.json declare any dependency?"""
        return any(self.manifest.get(t) for t in PACKAGE_TABLES)

    def canonical(self) -> list[Any]:
        return [
            self.manifest,
            self.lockfile,
            [[s.file, s.line, list(s.paths), s.option] for s in self.sources],
            self.unread,
        ]


def is_registry_spec(spec: str) -> bool:
    """Is a dependency spec a version range or tag of a package from the registry (`^1.2`,
    `1.x || 2`, `latest`, `npm:other@^1`), rather than a path, a URL or a repository?"""
    s = spec.strip()
    if s.startswith("npm:"):  # an alias: another package's name, from the same registry
        scoped = s.startswith("npm:@")
        body = s[5:] if scoped else s[4:]
        _, at, rest = body.partition("@")
        return is_registry_spec(rest) if at else body.count("/") == int(scoped)
    if _PROTOCOL.match(s) or s.startswith((".", "/", "~/")):  # `~1.2` is a range
        return False  # file:, link:, git+…, github:, http(s)://, workspace:, a path
    return "/" not in s and not s.endswith(_TARBALL)  # user/repo, a tarball's path


def under(url: str, registry: str) -> bool:
    """Is `url` in the registry `registry` (None or empty: the registry is not known, so no
    URL is)?"""
    if not registry:
        return False
    base = registry if registry.endswith("/") else registry + "/"
    return url.startswith(base)


def tree_path(target: str) -> str | None:
    """The tree-relative path a `file:`/`link:` spec or a relative path names; None when it
    names none in the tree."""
    path = re.sub(r"^(file|link):(//)?", "", target.strip())
    if not path or path.startswith(("/", "~")) or _PROTOCOL.match(path):
        return None
    joined = posixpath.normpath(path)
    return None if joined == ".." or joined.startswith("../") else joined


def read_package(data: Any, out: NodeDeclaration) -> None:
    """Add what a parsed `package.json` declares: the fields `npm ci` reads, and each
    dependency that is not from the registry as a source."""
    if not isinstance(data, Mapping):
        out.unread.append(f"{PACKAGE_JSON}: not a JSON object")
        return
    out.manifest = {k: data[k] for k in MANIFEST_FIELDS if k in data}
    for table in PACKAGE_TABLES:
        deps = data.get(table)
        if deps is None:
            continue
        if not isinstance(deps, Mapping):
            out.unread.append(f"{PACKAGE_JSON}: {table} (not an object)")
            continue
        for name, spec in deps.items():
            if not isinstance(spec, str):
                out.unread.append(f"{PACKAGE_JSON}: {table} {name} (not a string)")
            elif not is_registry_spec(spec):
                found = tree_path(spec) if not spec.startswith(("git", "http")) else None
                line = f"{table} {name} = {spec}"
                out.sources.append(Source(PACKAGE_JSON, line, (found,) if found else ()))
    if "workspaces" in data:
        out.manifest["workspaces"] = data["workspaces"]
        line = f"workspaces = {inline(data['workspaces'])}"
        out.sources.append(Source(PACKAGE_JSON, line))


def read_lock(data: Any, name: str, registry: str, out: NodeDeclaration) -> None:
    """Add what a parsed npm lockfile `name` says of where each package comes from: an entry
    fetched from elsewhere than `registry`, or linked to a folder, is a source."""
    out.lockfile = name
    if not isinstance(data, Mapping):
        out.unread.append(f"{name}: not a JSON object")
        return
    packages = data.get("packages")
    if isinstance(packages, Mapping):  # lockfileVersion 2 and 3
        for key, entry in packages.items():
            if key and isinstance(entry, Mapping):
                _entry(str(key), entry, name, registry, out)
        return
    deps = data.get("dependencies")
    if isinstance(deps, Mapping):  # lockfileVersion 1: nested by package
        _v1(deps, "node_modules", name, registry, out, depth=0)
        return
    out.unread.append(f"{name}: no packages ralph can read (lockfileVersion 2 or 3)")


def _entry(
    key: str, entry: Mapping[str, Any], name: str, registry: str, out: NodeDeclaration
) -> None:
    resolved = entry.get("resolved")
    if entry.get("link") is True:
        # a link to a folder (a workspace's package): where it leads is a source, what the
        # folder holds is the tree's own code, compared and run in the room like the rest
        out.sources.append(Source(name, f"{key} linked to {resolved}"))
        return
    if not isinstance(resolved, str):
        version = entry.get("version")
        if isinstance(version, str) and not is_registry_spec(version):
            path = tree_path(version) if version.startswith("file:") else None
            out.sources.append(Source(name, f"{key} version {version}", (path,) if path else ()))
        return  # fetched by its name and version: from the registry
    if under(resolved, registry):
        return
    path = tree_path(resolved) if resolved.startswith("file:") else None
    out.sources.append(Source(name, f"{key} resolved {resolved}", (path,) if path else ()))


def _v1(
    deps: Mapping[str, Any], at: str, name: str, registry: str, out: NodeDeclaration, depth: int
) -> None:
    if depth > 64:  # a lockfile nested deeper is no project's
        out.unread.append(f"{name}: dependencies nested deeper than 64")
        return
    for package, entry in deps.items():
        if not isinstance(entry, Mapping):
            continue
        key = f"{at}/{package}"
        _entry(key, entry, name, registry, out)
        nested = entry.get("dependencies")
        if isinstance(nested, Mapping):
            _v1(nested, f"{key}/node_modules", name, registry, out, depth + 1)
