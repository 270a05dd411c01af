"""store/disk/confined.py on its own: the primitives, with openat (POSIX) and without (the checks
Windows gets, played here by switching openat off)."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from ralph.errors import UnsafePath
from ralph.store.disk import confined

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlinks")


@pytest.fixture(params=["openat", "checked names"])
def mode(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    if request.param == "checked names":
        monkeypatch.setattr(confined, "_AT", False)
    return str(request.param)


@pytest.fixture
def setup(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "proj"
    (root / ".ralph").mkdir(parents=True)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "f").write_text("mine\n")
    return root, outside


def test_writes_and_deletes_never_follow_a_link(mode: str, setup: tuple[Path, Path]) -> None:
    root, outside = setup
    state = root / ".ralph"
    (state / "file").symlink_to(outside / "f")
    (state / "folder").symlink_to(outside)
    writes: list[Callable[[], object]] = [
        lambda: confined.write_atomic(root, state / "file", b"x"),
        lambda: confined.write_bytes(root, state / "file", b"x", append=True),
        lambda: confined.write_atomic(root, state / "folder" / "f", b"x"),
        lambda: confined.makedirs(root, state / "folder" / "new"),
        lambda: confined.remove_tree(root, state / "folder"),
    ]
    for write in writes:
        with pytest.raises(UnsafePath, match="link"):
            write()
    assert sorted(p.name for p in outside.iterdir()) == ["f"]
    assert (outside / "f").read_text() == "mine\n"
    assert [p.name for p in state.iterdir() if p.name.endswith(".tmp")] == []


def test_a_folder_with_a_link_inside_is_deleted_without_following_it(
    mode: str, setup: tuple[Path, Path]
) -> None:
    root, outside = setup
    history = root / ".ralph" / "history" / "a"
    history.mkdir(parents=True)
    (history / "001.log").write_text("log")
    (history / "out").symlink_to(outside)
    confined.remove_tree(root, root / ".ralph" / "history")
    assert not (root / ".ralph" / "history").exists()
    assert (outside / "f").read_text() == "mine\n"


def test_a_plain_write_and_move_work(mode: str, setup: tuple[Path, Path]) -> None:
    root, _ = setup
    confined.write_atomic(root, root / ".ralph" / "new" / "s.json", b"{}", create_dirs=True)
    confined.move(root, root / ".ralph" / "new" / "s.json", root / ".ralph" / "archive" / "s.json")
    assert (root / ".ralph" / "archive" / "s.json").read_bytes() == b"{}"
    assert sorted(p.name for p in (root / ".ralph" / "new").iterdir()) == []
