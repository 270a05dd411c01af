"""store/rooms/startcopy.py: the code as it was when the run began."""

from __future__ import annotations

import os

from ralph.store.rooms.room import RoomSource, record_start
from ralph.store.rooms.startcopy import changed_since_start, record_start_copy, start_copy
from tests.conftest import Project


def taken(p: Project, *, commit: bool = True) -> RoomSource:
    if commit:
        p.commit_all()
    source = RoomSource(p.root)
    record_start(p.root, source)
    record_start_copy(p.root, source)
    return source


def test_the_copy_holds_the_start_and_a_second_record_keeps_it(git_project: Project) -> None:
    p = git_project
    p.write(
        {".gitignore": ".ralph/\nbuild/\n", "src/calc.py": "def add(a, b):\n    return a + b\n"}
    )
    source = taken(p)
    copy = start_copy(p.root)
    assert copy is not None and (copy / "src" / "calc.py").read_text().endswith("a + b\n")
    p.write({"src/calc.py": "def add(a, b):\n    return 2\n", "src/new.py": "x = 1\n"})
    assert record_start_copy(p.root, source) == copy  # kept: the run began before
    assert (copy / "src" / "calc.py").read_text().endswith("a + b\n")
    assert not (copy / "src" / "new.py").exists()


def test_changed_since_start_compares_bytes_not_stat(git_project: Project) -> None:
    p = git_project
    p.write({"a.py": "x = 1\n", "b.py": "y = 1\n", "gone.py": "z\n", "same.py": "s\n"})
    taken(p)
    copy = start_copy(p.root)
    assert copy is not None
    now = p.root.parent / "now"
    now.mkdir()
    for name, text in {
        "a.py": "x = 2\n",
        "b.py": "y = 1\n",
        "new/c.py": "c\n",
        "same.py": "s\n",
    }.items():
        (now / name).parent.mkdir(parents=True, exist_ok=True)
        (now / name).write_text(text)
    (now / "link").symlink_to("a.py")
    stat = (copy / "a.py").stat()

    os.utime(now / "a.py", ns=(stat.st_atime_ns, stat.st_mtime_ns))  # same size, same mtime
    assert changed_since_start(copy, now) == ["a.py", "gone.py", "link", "new/c.py"]
    assert changed_since_start(copy, copy) == []
