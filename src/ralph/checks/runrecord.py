"""ralph's pytest plugin in a clean room (checks/pytestrecord.py): placed, named to pytest,
and its record of each run read back (rules/evidence/runrecord.py judges it).

The plugin lives in `.ralph/record/` of the room, a folder no tree's file can reach (the room
never copies a `.ralph/`, store/rooms/room.py) and every sync of the room removes; it is written
afresh when the room is synced, at the same path for every run in that room, and the run's
records are cleared before each command and read right after it, through the one reader (a
link, a pipe or a device there is no record).
"""

from __future__ import annotations

import contextlib
import json
import os
import shlex
from pathlib import Path

from ralph.errors import RalphError
from ralph.rules.evidence.runrecord import RunRecord, judged
from ralph.store.disk import reader
from ralph.store.rooms.roomsync import wipe

FOLDER = (".ralph", "record")
MODULE = "ralph_record"  # its name to pytest: `-p ralph_record`
RECORD_LIMIT = 1 << 16
PREFIX = "session-"


def folder(room: Path) -> Path:
    return room.joinpath(*FOLDER)


def place(room: Path) -> None:
    """The plugin written into `room` now (a sync just removed what was there)."""
    where = folder(room)
    wipe(room / FOLDER[0])
    where.mkdir(mode=0o700, parents=True)
    source = (Path(__file__).parent / "pytestrecord.py").read_bytes()
    (where / f"{MODULE}.py").write_bytes(source)


def env(base: dict[str, str], room: Path) -> dict[str, str]:
    """`base` with the plugin first on PYTHONPATH (a project's module of its name cannot
    stand in for it) and loaded by every pytest the run starts."""
    rest = base.get("PYTHONPATH", "")
    first = str(folder(room))
    addopts = base.get("PYTEST_ADDOPTS", "")
    return {
        **base,
        "PYTHONPATH": first + (os.pathsep + rest if rest else ""),
        "PYTEST_ADDOPTS": " ".join(w for w in ("-p", shlex.quote(MODULE), addopts) if w),
    }


def clear(room: Path) -> None:
    """The records of an earlier run in `room` removed, the plugin kept."""
    with contextlib.suppress(OSError):
        for path in folder(room).iterdir():
            if path.name.startswith(PREFIX):
                wipe(path)


def read(room: Path) -> RunRecord | None:
    """What the pytest sessions of the run that just ended in `room` recorded; None when
    none did."""
    where = folder(room)
    try:
        names = sorted(p.name for p in where.iterdir() if p.name.startswith(PREFIX))
    except OSError:
        return None
    found: list[dict[str, object] | None] = []
    for name in names:
        if not name.endswith(".json"):
            continue  # a record being written (its spare copy)
        try:
            raw = reader.read_bytes(where / name, limit=RECORD_LIMIT, root=where)
            data = json.loads(raw)
        except (OSError, RalphError, ValueError):
            data = None
        found.append(data if isinstance(data, dict) else None)
    return judged(found)
