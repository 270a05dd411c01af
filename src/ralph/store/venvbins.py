"""The commands a built virtualenv puts on PATH (`bin/`): the checks' PATH has it first, so a
declared package's console script named like a command the test command runs (`pytest`,
`make`) would run in its place."""

from __future__ import annotations

import re
import shutil
from collections.abc import Mapping
from pathlib import Path

from ralph.errors import RalphError
from ralph.rules.declarations import normal
from ralph.store.declared import MAX_DECLARING
from ralph.store.reader import read_text

# what a virtualenv holds of its own in bin/: never a package's command
_OWN = re.compile(r"^(python[\d.]*|activate.*|Activate\.ps1|deactivate\.bat|pydoc\.bat)$")


def shadowing(venv: Path, start: Path | None, env: Mapping[str, str]) -> str | None:
    """Why a command of the build's `bin/` is refused: one new since the start's virtualenv
    (`start`; None: there was none) that is named like a command on PATH but not like its own
    distribution (a wheel whose `pytest` is its own plugin's runner)."""
    had = set(_names(start / "bin")) if start is not None else set()
    owners = _owners(venv)
    for name in _names(venv / "bin"):
        if name in had or _OWN.match(name) or shutil.which(name, path=env.get("PATH")) is None:
            continue
        owner = owners.get(name, "?")
        if normal(owner) != normal(name):
            return (
                f"a declared package's command shadows one on PATH: bin/{name} (from {owner}); "
                "a person installs it, or the test command runs it by its package"
            )
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
