"""store/rooms/roomfile.py: one path of a clean room's copy, what it is made from and making it,
never through a link planted in either tree."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from ralph.store.rooms import roomfile
from ralph.store.rooms.roomfile import Maker, copy_key, like_file, racy_from, want_bytes, want_file


def test_a_file_is_wanted_by_its_stat_and_a_young_one_is_never_trusted(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a\n")
    st = os.lstat(tmp_path / "a.py")
    settled = want_file(f"{tmp_path}/", "a.py", racy_from=st.st_ctime_ns + 1)
    assert settled is not None and settled.kind == "file"
    assert settled.key == [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, 0o644]
    young = want_file(f"{tmp_path}/", "a.py", racy_from=st.st_ctime_ns)
    assert young is not None and young.key[-1] is None  # copied again at every sync
    assert racy_from() > st.st_ctime_ns - roomfile.RACY_NS


def test_a_link_is_wanted_by_its_target_and_anything_else_not_at_all(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to("../outside/secret")
    os.mkfifo(tmp_path / "pipe")
    (tmp_path / "folder").mkdir()
    link = want_file(f"{tmp_path}/", "link", racy_from())
    assert link is not None and (link.kind, link.data) == ("link", b"../outside/secret")
    for name in ("pipe", "folder", "gone"):
        assert want_file(f"{tmp_path}/", name, racy_from()) is None, name


def test_bytes_are_wanted_by_their_hash_and_fresh_ones_never_match() -> None:
    one, same = want_bytes(b"x", 0o600), want_bytes(b"x", 0o600)
    assert one.key == same.key and one.key != want_bytes(b"y", 0o600).key
    assert one.key != want_bytes(b"x", 0o644).key
    assert want_bytes(b"x", fresh=True).key != want_bytes(b"x", fresh=True).key


def test_like_file_reads_a_regular_file_never_a_link(tmp_path: Path) -> None:
    (tmp_path / "a").write_text("a")
    (tmp_path / "a").chmod(0o751)
    os.utime(tmp_path / "a", ns=(5, 7))
    (tmp_path / "l").symlink_to(tmp_path / "a")
    assert like_file(tmp_path / "a") == (0o751, (5, 7))
    assert like_file(tmp_path / "l") is None and like_file(tmp_path / "gone") is None


@pytest.fixture(params=[True, False], ids=["descriptors", "confined-calls"])
def both_ways(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> bool:
    """POSIX keeps each folder's descriptor open; elsewhere each path goes through
    store/disk/confined.py: both ways are met on this system."""
    monkeypatch.setattr(roomfile, "_AT", request.param)
    return bool(request.param)


def _settled(tree: Path, rel: str) -> roomfile.Want:
    want = want_file(f"{tree}/", rel, racy_from=0)
    assert want is not None
    return want


def test_files_links_and_bytes_are_made_as_wanted(tmp_path: Path, both_ways: bool) -> None:
    tree, room = tmp_path / "tree", tmp_path / "room"
    (tree / "pkg" / "deep").mkdir(parents=True)
    room.mkdir()
    (tree / "pkg" / "a.py").write_text("a\n")
    (tree / "pkg" / "a.py").chmod(0o755)
    os.utime(tree / "pkg" / "a.py", ns=(1_000, 2_000))
    (tree / "pkg" / "deep" / "b.py").write_text("b\n")
    (tree / "pkg" / "link").symlink_to("a.py")
    wants = {
        "pkg/a.py": _settled(tree, "pkg/a.py"),
        "pkg/deep/b.py": _settled(tree, "pkg/deep/b.py"),
        "pkg/link": _settled(tree, "pkg/link"),
        "top.cfg": want_bytes(b"placed", 0o600, times=(3_000, 4_000)),
    }
    with Maker(tree, room) as make:
        keys = {rel: make(rel, wants[rel]) for rel in sorted(wants)}
    assert (room / "pkg" / "a.py").read_text() == "a\n"
    assert stat.S_IMODE((room / "pkg" / "a.py").stat().st_mode) == 0o755
    assert (room / "pkg" / "a.py").stat().st_mtime_ns == 2_000  # as the tree's: only bytes differ
    assert (room / "pkg" / "deep" / "b.py").read_text() == "b\n"
    assert (room / "pkg" / "link").readlink() == Path("a.py")
    assert (room / "top.cfg").read_bytes() == b"placed"
    assert stat.S_IMODE((room / "top.cfg").stat().st_mode) == 0o600
    assert (room / "top.cfg").stat().st_mtime_ns == 4_000
    for rel, key in keys.items():
        assert key == copy_key(os.lstat(room / rel)), rel


def test_a_file_changed_since_it_was_listed_is_left_for_the_next_sync(
    tmp_path: Path, both_ways: bool
) -> None:
    tree, room = tmp_path / "tree", tmp_path / "room"
    tree.mkdir()
    room.mkdir()
    (tree / "a.py").write_text("a\n")
    want = _settled(tree, "a.py")
    (tree / "a.py").write_text("rewritten, longer\n")
    with Maker(tree, room) as make:
        assert make("a.py", want) is None
    assert not (room / "a.py").exists()


def test_a_link_planted_for_a_source_folder_is_never_followed(
    tmp_path: Path, both_ways: bool
) -> None:
    tree, room, elsewhere = tmp_path / "tree", tmp_path / "room", tmp_path / "elsewhere"
    (tree / "pkg").mkdir(parents=True)
    room.mkdir()
    elsewhere.mkdir()
    (tree / "pkg" / "a.py").write_text("a\n")
    want = _settled(tree, "pkg/a.py")
    # between the listing and the copy: the folder moves out, a link takes its place (the
    # file is the very one listed: only the link tells)
    (tree / "pkg").rename(elsewhere / "pkg")
    (tree / "pkg").symlink_to(elsewhere / "pkg")
    with Maker(tree, room) as make:
        assert make("pkg/a.py", want) is None
    assert not (room / "pkg" / "a.py").exists()


def test_a_link_in_place_of_a_source_file_is_not_copied(tmp_path: Path, both_ways: bool) -> None:
    tree, room = tmp_path / "tree", tmp_path / "room"
    tree.mkdir()
    room.mkdir()
    (tree / "a.py").write_text("a\n")
    want = _settled(tree, "a.py")
    (tree / "a.py").rename(tmp_path / "moved.py")
    (tree / "a.py").symlink_to(tmp_path / "moved.py")
    with Maker(tree, room) as make:
        assert make("a.py", want) is None
    assert not (room / "a.py").exists()
