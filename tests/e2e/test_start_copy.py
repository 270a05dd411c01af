"""The code as it was when the run began (store/rooms/startcopy.py): taken once, compared by bytes,
kept while the run goes on, dropped by a verified end and by `ralph reset`."""

from __future__ import annotations

from ralph.store.rooms.room import RoomSource, record_start
from ralph.store.rooms.startcopy import record_start_copy, start_copy
from tests.conftest import Project

DONE = {"signal": "DONE"}


def taken(p: Project, *, commit: bool = True) -> RoomSource:
    if commit:
        p.commit_all()
    source = RoomSource(p.root)
    record_start(p.root, source)
    record_start_copy(p.root, source)
    return source


def test_a_stopped_run_keeps_the_start_a_verified_run_and_reset_drop_it(
    git_project: Project,
) -> None:
    p = git_project
    p.write({".gitignore": ".ralph/\n", "specs/a.spec.md": "# a\n- [ ] x\n", "m.py": "v = 1\n"})
    taken(p)
    res = p.run("run", *p.fake({"*": [DONE]}), "-n", "1")
    assert res.exit_code == 3, res
    assert start_copy(p.root) is not None  # the run goes on next time: its start is kept
    res = p.run("run", *p.fake({"*": [DONE]}), "-n", "10")
    assert res.exit_code == 0, res
    assert start_copy(p.root) is None  # verified: the next run begins afresh
    taken(p, commit=False)
    res = p.run("reset")
    assert res.exit_code == 0, res
    assert "the copy of the code as the run began deleted" in res.stdout
    assert start_copy(p.root) is None
