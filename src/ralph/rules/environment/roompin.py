"""What keeps a test runner's configuration search inside the room it runs in (pure).

pytest looks for its configuration upward from its arguments (the working folder), up to the
file system's root: a `pytest.ini`, `tox.ini` or `setup.cfg` in any folder above the room
would be found when the room holds none, and a `conftest.py` above it would be loaded. The
room's own configuration, when it is at the room's root, is what pytest would find there in
the project; otherwise pytest is told to read none: `-c` names it (or the empty device),
`--rootdir` and `--confcutdir` are the room. Options go first in `PYTEST_ADDOPTS`: the
command's own `-c` or `--rootdir`, which are the person's, still win.

unittest searches nothing above its start folder; node's runners stop at the room's
`package.json` (jest) or read what they are given (vitest: the working folder).
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Mapping
from pathlib import PurePath

# the files pytest reads its configuration from, in the order it looks in one folder
CONFIG_NAMES = (
    *("pytest.toml", ".pytest.toml", "pytest.ini", ".pytest.ini"),
    *("pyproject.toml", "tox.ini", "setup.cfg"),
)
_SECTION = {
    "pyproject.toml": re.compile(r"^\s*\[\s*tool\.pytest(\.ini_options)?\s*\]", re.M),
    "tox.ini": re.compile(r"^\s*\[\s*pytest\s*\]", re.M),
    "setup.cfg": re.compile(r"^\s*\[\s*tool:pytest\s*\]", re.M),
}


def room_config(names: Mapping[str, str]) -> str | None:
    """The file at a room's root pytest takes its configuration from (`names`: the room's
    files of CONFIG_NAMES -> their text), or None when none is there: a `pytest.ini` always,
    another file when it holds pytest's section, else a `pyproject.toml` (pytest's last
    resort, taken only when no folder above has a configuration: in a room, none may)."""
    for name in CONFIG_NAMES:
        text = names.get(name)
        if text is None:
            continue
        section = _SECTION.get(name)
        if section is None or section.search(text):
            return name
    return "pyproject.toml" if "pyproject.toml" in names else None


def pin_pytest(
    room: PurePath, names: Mapping[str, str], addopts: str | None = None, *, empty: str
) -> str:
    """`PYTEST_ADDOPTS` for a check run in `room` (`addopts`: what it held before; `empty`:
    the platform's empty file, os.devnull, named when the room has no configuration)."""
    found = room_config(names)
    config = str(room / found) if found is not None else empty
    ours = ["-c", config, f"--rootdir={room}", f"--confcutdir={room}"]
    return " ".join([*(shlex.quote(w) for w in ours), *([addopts] if addopts else [])])
