"""The commands a built `node_modules` puts on PATH (`.bin`): `npm test` and `npx` put them
first, so one named like a command the test command runs would run in its place."""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path


def shadowing(modules: Path, start: Path, env: Mapping[str, str]) -> str | None:
    """Why a command of the build's `node_modules/.bin` is refused: one new since the start
    that is named like a command on PATH but not like its own package (a package's `node`
    or `sh`): `npm test` puts `.bin` first on PATH, so it would run instead."""
    had = set(_names(start / ".bin"))
    for name in _names(modules / ".bin"):
        owner = _owner(modules / ".bin" / name)
        if name not in had and owner != name and shutil.which(name, path=env.get("PATH")):
            return (
                f"a declared package's command shadows one on PATH: node_modules/.bin/{name} "
                f"(from {owner})"
            )
    return None


def _names(folder: Path) -> list[str]:
    try:
        return sorted(p.name for p in folder.iterdir())
    except OSError:
        return []


def _owner(command: Path) -> str:
    """The package a `.bin` command belongs to (its link: `../pkg/cli.js`, `../@s/pkg/x`)."""
    try:
        parts = command.readlink().parts
    except OSError:
        return "?"
    inside = [p for p in parts if p not in ("..", ".")]
    if inside and inside[0].startswith("@"):
        return "/".join(inside[:2])
    return inside[0] if inside else "?"
