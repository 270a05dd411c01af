"""The commands a built environment puts on PATH: a virtualenv's `bin/` (the checks' PATH has
it first) and `node_modules/.bin` (`npm test` and `npx` put it first). A declared package's
command named like one the test command runs (`pytest`, `make`, `node`) would run in its
place: one new since the start, named like a command on PATH but not like its own package, is
refused."""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

from ralph.errors import RalphError
from ralph.rules.environment.declarations import normal
from ralph.store.disk.reader import read_text
from ralph.store.environments.declared import MAX_DECLARING

# what a virtualenv holds of its own in bin/: never a package's command
_OWN = re.compile(r"^(python[\d.]*|activate.*|Activate\.ps1|deactivate\.bat|pydoc\.bat)$")
HINT = "a person installs it, or the test command runs it by its package"


def venv_shadowing(venv: Path, start: Path | None, env: Mapping[str, str]) -> str | None:
    """Why a command of the built virtualenv's `bin/` is refused (`start`: the start's
    virtualenv, None: there was none); a wheel's own runner (pytest's `pytest`) is not."""
    owners = _owners(venv)
    bins = start / "bin" if start is not None else None
    return _first(venv / "bin", bins, lambda name: owners.get(name, "?"), env, "bin")


def node_shadowing(modules: Path, start: Path, env: Mapping[str, str]) -> str | None:
    """Why a command of the built `node_modules/.bin` is refused (a package's `node`)."""
    folder = modules / ".bin"
    return _first(
        folder, start / ".bin", lambda name: _link_owner(folder / name), env, "node_modules/.bin"
    )


def _first(
    folder: Path,
    start: Path | None,
    owner: Callable[[str], str],
    env: Mapping[str, str],
    shown: str,
) -> str | None:
    had = set(_names(start)) if start is not None else set()
    for name in _names(folder):
        if name in had or _OWN.match(name) or shutil.which(name, path=env.get("PATH")) is None:
            continue
        who = owner(name)
        if normal(who) != normal(name):
            said = f"{shown}/{name} (from {who})"
            return f"a declared package's command shadows one on PATH: {said}; {HINT}"
    return None


def _names(folder: Path) -> list[str]:
    try:
        return sorted(p.name for p in folder.iterdir())
    except OSError:
        return []


def _owners(venv: Path) -> dict[str, str]:
    """Each command of `bin/` and the distribution whose RECORD lists it."""
    out: dict[str, str] = {}
    for site in venv.glob("lib/python*/site-packages"):
        for record in site.glob("*.dist-info/RECORD"):
            dist = record.parent.name.split("-")[0]
            try:
                text = read_text(record, limit=MAX_DECLARING, root=site, truncate=True)
            except (OSError, RalphError):
                continue
            for line in text.splitlines():
                path = line.split(",")[0]
                if "/bin/" in f"/{path}":
                    out.setdefault(path.rsplit("/", 1)[-1], dist)
    return out


def _link_owner(command: Path) -> str:
    """The package a `.bin` command belongs to (its link: `../pkg/cli.js`, `../@s/pkg/x`)."""
    try:
        parts = command.readlink().parts
    except OSError:
        return "?"
    inside = [p for p in parts if p not in ("..", ".")]
    if inside and inside[0].startswith("@"):
        return "/".join(inside[:2])
    return inside[0] if inside else "?"
