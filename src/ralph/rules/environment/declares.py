"""Which of a tree's declaring files names a package (pure): `package.json`'s dependency
tables for Node; `pyproject.toml` (`[project]`, its extras, `[dependency-groups]`, Poetry's
tables), `setup.cfg` (`install_requires`, `extras_require`, `tests_require`) and
`requirements*.txt` for Python, read as the checks' environment reads them
(rules/environment/declarations.py). A failed check that cannot import a package one of them names
failed on the checks' environment, not on the work (checks/failure.py)."""

from __future__ import annotations

import configparser
import json
import sys
from collections.abc import Iterator, Mapping
from typing import Any

from ralph.rules.environment.declarations import (
    REQUIREMENT_NAME,
    Declaration,
    normal,
    read_pyproject,
    read_setup_cfg,
)
from ralph.rules.environment.requirements import read_requirements

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

PACKAGE_TABLES = ("dependencies", "devDependencies", "optionalDependencies", "peerDependencies")


def is_declaring(name: str) -> bool:
    """Is a file of this name at a tree's root one that may declare dependencies?"""
    return name in ("package.json", "pyproject.toml", "setup.cfg") or (
        name.startswith("requirements") and name.endswith(".txt")
    )


def declaring_file(package: str, files: Mapping[str, str]) -> str | None:
    """The first of `files` (name -> text, in the order given) that declares `package`; None
    when none does or none can be read as what its name says."""
    wanted = normal(package)
    for name, text in files.items():
        try:
            found = _names(name, text)
            if name == "package.json" and package in found:
                return name
            if name != "package.json" and wanted in {normal(n) for n in found}:
                return name
        except (ValueError, configparser.Error, tomllib.TOMLDecodeError):
            continue  # a file that does not parse declares nothing here
    return None


def _names(name: str, text: str) -> set[str]:
    if name == "package.json":
        data = json.loads(text)
        tables = [data.get(t) for t in PACKAGE_TABLES] if isinstance(data, dict) else []
        return {k for t in tables if isinstance(t, dict) for k in t}
    out = Declaration()  # Python's: read as the checks' environment reads them
    if name == "pyproject.toml":
        data = tomllib.loads(text)
        read_pyproject(data, name, out)
        return _named(out) | set(_poetry(data))  # Poetry's too: declared, if not built
    if name == "setup.cfg":
        read_setup_cfg(text, name, out)
    elif is_declaring(name):  # requirements*.txt
        read_requirements(text, name, out)
    return _named(out)


def _named(out: Declaration) -> set[str]:
    return {m[1] for r in out.requirements if (m := REQUIREMENT_NAME.match(r)) is not None}


def _poetry(data: dict[str, Any]) -> Iterator[str]:
    poetry = (data.get("tool") or {}).get("poetry") or {}
    yield from _keys(poetry.get("dependencies"), poetry.get("dev-dependencies"))
    for group in _tables(poetry.get("group")):
        yield from _keys(group.get("dependencies") if isinstance(group, dict) else None)


def _strings(value: object) -> list[str]:
    return [v for v in value if isinstance(v, str)] if isinstance(value, list) else []


def _tables(value: object) -> list[Any]:
    return list(value.values()) if isinstance(value, dict) else []


def _keys(*tables: object) -> Iterator[str]:
    for table in tables:
        if isinstance(table, dict):
            yield from (k for k in table if k != "python")
