"""`make bench`: the clean room's cost at the DONE gate (store/rooms/room.py).

Generates git repositories of 1,000 / 10,000 / 50,000 small tracked files (plus an ignored
`node_modules/` of 2,000 files, which must cost nothing) and measures, in ralph's own process:
the first build of the room (a full copy), a re-sync after 10 files changed (what a DONE after
a rotation costs), a re-sync with nothing changed (a second DONE on the same tree, the final
verification), and the first build of room B (the person's tests: a room of its own). Each
figure is the median of 3 on fresh stores. Prints a table. The projects and the store are made
in the home folder (the store's default place), and removed at the end.
"""

from __future__ import annotations

import os
import shutil
import statistics
import tempfile
import time
from pathlib import Path

import trees

SIZES = (1_000, 10_000, 50_000)
CHANGED = 10
RUNS = 3
ENV = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1"}


def git(root: Path, *args: str) -> None:
    trees.git(root, *args, env=ENV)


def make_tree(root: Path, files: int) -> None:
    trees.source_tree(root, files, ".py", "VALUE = {i}\n", ENV)
    (root / ".gitignore").write_text(".ralph/\nnode_modules/\n__pycache__/\n")
    nm = root / "node_modules" / "pkg"
    nm.mkdir(parents=True)
    for i in range(2_000):
        (nm / f"m{i}.js").write_text("x\n")
    git(root, "add", "-A")
    git(root, "commit", "-qm", "tree")


def ms(started: float) -> float:
    return (time.perf_counter() - started) * 1000


def measure(root: Path, state: Path) -> tuple[float, float, float, float]:
    """(first build, re-sync after CHANGED files, re-sync unchanged, room B first) in ms."""
    from ralph.store.rooms.room import RoomSource, build_room, record_start, rooms_dir

    shutil.rmtree(state, ignore_errors=True)
    source = RoomSource(root)
    record_start(root, source)
    t = time.perf_counter()
    build_room(root, root, "main", source=source)
    first = ms(t)
    time.sleep(0.01)
    for i in range(CHANGED):
        (root / "src" / f"d{i:04d}" / f"f{i * 100}.py").write_text(f"VALUE = -{i}\n")
    t = time.perf_counter()
    room = build_room(root, root, "main", source=source)
    changed = ms(t)
    assert room.copied >= CHANGED, room
    t = time.perf_counter()
    build_room(root, root, "main", source=source)
    same = ms(t)
    t = time.perf_counter()
    build_room(root, root, "main.person", source=source, replace={"src/d0000/f0.py": b"X = 1\n"})
    person = ms(t)
    shutil.rmtree(rooms_dir(root), ignore_errors=True)
    return first, changed, same, person


def main() -> None:
    # in the home folder, where ralph's store (and so the room) lives by default: a /tmp on
    # another file system (tmpfs, or a disk mounted with other options) says nothing of it
    base = Path(tempfile.mkdtemp(prefix="ralph-bench-room-", dir=Path.home()))
    # ralph's private stores of the bench's projects go with them, not into the user's home
    os.environ["XDG_STATE_HOME"] = ENV["XDG_STATE_HOME"] = str(base / "state")
    try:
        print(f"clean room at the DONE gate (median of {RUNS}, ms)")
        print(
            f"{'files':>8} {'first build':>12} {f'{CHANGED} changed':>11} "
            f"{'unchanged':>10} {'room B first':>13}"
        )
        for files in SIZES:
            root = base / f"t{files}"
            make_tree(root, files)
            runs = [measure(root, base / "state") for _ in range(RUNS)]
            cols = zip(*runs, strict=True)
            first, changed, same, person = (statistics.median(col) for col in cols)
            print(f"{files:>8} {first:>12.0f} {changed:>11.0f} {same:>10.0f} {person:>13.0f}")
            shutil.rmtree(root, ignore_errors=True)
    finally:
        shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
