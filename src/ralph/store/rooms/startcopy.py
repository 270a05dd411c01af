"""The code as it was when the run began: a room of the project taken before the first rotation.

The checks that ask what the agent's work changed (`method: mutation` mutates the lines it
changed; `method: revert` runs the new tests on the old code) need the old bytes, and ralph
keeps them itself: a commit, a stash or any file in the work tree is the agent's to rewrite.
The copy is a room (store/rooms/room.py: the files the snapshot compares, nothing ignored, no
bytecode) in the private store, taken once when a run starts with such a check and none is
kept, and kept until a run ends verified or `ralph reset`: a run stopped and started again
keeps its start. Lanes start from the project's HEAD (they need a clean tree), so the
project's copy is theirs too.
"""

from __future__ import annotations

import os
from pathlib import Path

from ralph.store.rooms.room import ENVIRONMENTS, RoomSource, build_room, rooms_dir
from ralph.store.rooms.roomsync import wipe

NAME = "run-start"  # a lane's room is "<name>-<hash6>": never this
WANTED = frozenset(("mutation", "revert"))  # the check methods that need it


def start_copy(project: Path) -> Path | None:
    """The copy taken when the run began, or None when none was taken."""
    done = rooms_dir(project) / NAME / "taken"
    return done.parent / "tree" if done.is_file() else None


def record_start_copy(project: Path, source: RoomSource) -> Path:
    """Take the copy now unless one is kept; its path. The marker is written last, so a copy
    cut short (killed, disk full) is taken again, never read half-made."""
    kept = start_copy(project)
    if kept is not None:
        return kept
    room = build_room(project, project, NAME, source=source)
    (rooms_dir(project) / NAME / "taken").write_text("")
    return room.path


def drop_start_copy(project: Path) -> bool:
    """Forget the copy (a run ended verified, `ralph reset`); whether there was one."""
    folder = rooms_dir(project) / NAME
    if not folder.exists():
        return False
    (folder / "taken").unlink(missing_ok=True)
    wipe(folder)
    return True


def changed_since_start(start: Path, now: Path) -> list[str]:
    """Root-relative posix paths whose bytes differ between two rooms (added, changed or
    deleted), sorted. A link compares by its target; the linked environments (`.venv`,
    `node_modules`: folders of links to ralph's copies) are no part of either."""
    before, after = _files(start), _files(now)
    out = list(before.keys() ^ after.keys())
    for rel in before.keys() & after.keys():
        a, b = before[rel], after[rel]
        if a.is_symlink() or b.is_symlink():
            if not (a.is_symlink() and b.is_symlink()) or a.readlink() != b.readlink():
                out.append(rel)
        elif not _same(a, b):
            out.append(rel)
    return sorted(out)


def _same(a: Path, b: Path) -> bool:
    # by content, never by stat: a sync may write other bytes of the same size and mtime
    if a.stat().st_size != b.stat().st_size:
        return False
    with a.open("rb") as fa, b.open("rb") as fb:
        while True:
            x, y = fa.read(1 << 16), fb.read(1 << 16)
            if x != y:
                return False
            if not x:
                return True


def _environment(folder: Path) -> bool:
    """A room's folder of links to an environment (store/rooms/room.py), not a tracked folder."""
    if folder.name not in ENVIRONMENTS:
        return False
    return folder.name == "node_modules" or (folder / "pyvenv.cfg").is_symlink()


def _files(root: Path) -> dict[str, Path]:
    out: dict[str, Path] = {}
    if not root.is_dir():
        return out
    for folder, dirs, names in os.walk(root):
        here = Path(folder)
        rel_dir = here.relative_to(root).as_posix()
        prefix = "" if rel_dir == "." else rel_dir + "/"
        if not prefix:  # the environments a room links to are ralph's, never the work
            dirs[:] = [d for d in dirs if not _environment(here / d)]
        # a link to a folder is a file of the room (its target is compared, not walked)
        for d in [d for d in dirs if (here / d).is_symlink()]:
            dirs.remove(d)
            names.append(d)
        for name in names:
            out[prefix + name] = here / name
    return out
