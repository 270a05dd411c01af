"""store/rooms/roomsync.py: a clean room kept in step with what it must hold, copying only what
changed, whatever a check did to the copy or to the manifest.

Rooms as checks get them (built from a project, the person's tests placed) are in
tests/store/rooms/test_room.py; here the sync alone, on a tree and its wants."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ralph.store.rooms.roomfile import Want, want_bytes, want_file
from ralph.store.rooms.roomsync import load_manifest, sync, wipe


def _tree(root: Path, files: dict[str, str]) -> dict[str, Want]:
    wants = {}
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
        want = want_file(f"{root}/", rel, racy_from=0)  # settled: a key to trust
        assert want is not None
        wants[rel] = want
    return wants


def _places(tmp_path: Path) -> tuple[Path, Path, Path]:
    return tmp_path / "tree", tmp_path / "rooms" / "r", tmp_path / "rooms" / "r.json"


def test_a_second_sync_copies_nothing_that_is_still_good(tmp_path: Path) -> None:
    tree, room, manifest = _places(tmp_path)
    wants = _tree(tree, {"a.py": "a\n", "pkg/b.py": "b\n"})
    first = sync(tree, room, manifest, wants)
    assert (first.copied, first.removed, first.failed) == (2, 0, ())
    assert (room / "pkg" / "b.py").read_text() == "b\n"
    assert not (room / "r.json").exists() and manifest.is_file()  # beside, never inside
    again = sync(tree, room, manifest, wants)  # from the manifest file: the next run
    assert (again.copied, again.removed) == (0, 0)
    assert sync(tree, room, manifest, wants, known=again.manifest).copied == 0


def test_a_source_that_changed_is_copied_again(tmp_path: Path) -> None:
    tree, room, manifest = _places(tmp_path)
    wants = _tree(tree, {"a.py": "a\n", "b.py": "b\n"})
    sync(tree, room, manifest, wants)
    wants.update(_tree(tree, {"a.py": "changed\n"}))
    out = sync(tree, room, manifest, wants)
    assert out.copied == 1 and (room / "a.py").read_text() == "changed\n"


def test_what_a_check_did_to_the_copy_is_undone(tmp_path: Path) -> None:
    tree, room, manifest = _places(tmp_path)
    wants = _tree(tree, {"a.py": "a\n", "keep/b.py": "b\n"})
    done = sync(tree, room, manifest, wants)
    (room / "a.py").write_text("a\n")  # the same bytes, rewritten: its ctime tells
    (room / "keep" / "b.py").chmod(0o777)
    (room / "leftover.txt").write_text("x")
    (room / "cache" / "deep").mkdir(parents=True)
    (room / "cache" / "deep").chmod(0o000)  # made unreadable: still goes
    out = sync(tree, room, manifest, wants, known=done.manifest)
    assert out.copied == 2 and out.removed == 2
    assert sorted(p.name for p in room.iterdir()) == ["a.py", "keep"]
    assert oct((room / "keep" / "b.py").stat().st_mode & 0o777) == oct(0o644)


def test_a_forged_manifest_file_is_not_trusted_over_this_processs_own(tmp_path: Path) -> None:
    tree, room, manifest = _places(tmp_path)
    wants = _tree(tree, {"a.py": "a\n"})
    done = sync(tree, room, manifest, wants)
    (room / "a.py").write_text("forged\n")
    data = json.loads(manifest.read_text())
    st = os.lstat(room / "a.py")
    data["files"]["a.py"][2] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_mode]
    manifest.write_text(json.dumps(data))  # a check's code rewrote it to match
    # the control: a first sync of a new run, from the file alone, is fooled
    assert sync(tree, room, manifest, wants).copied == 0
    assert sync(tree, room, manifest, wants, known=done.manifest).copied == 1
    assert (room / "a.py").read_text() == "a\n"


def test_a_damaged_manifest_costs_a_full_copy_and_nothing_else(tmp_path: Path) -> None:
    tree, room, manifest = _places(tmp_path)
    wants = _tree(tree, {"a.py": "a\n"})
    sync(tree, room, manifest, wants)
    files = json.loads(manifest.read_text())["files"]
    damaged = [
        "{not json",
        json.dumps({"format": 99, "files": files}),
        '{"format": 1, "files": []}',
    ]
    for text in damaged:
        manifest.write_text(text)
        assert load_manifest(manifest) == {}, text
        assert sync(tree, room, manifest, wants).copied == 1, text


def test_spare_names_are_the_callers_and_a_gone_source_fails(tmp_path: Path) -> None:
    tree, room, manifest = _places(tmp_path)
    wants = _tree(tree, {"a.py": "a\n", "gone.py": "g\n"})
    wants["placed.cfg"] = want_bytes(b"cfg")
    (tree / "gone.py").unlink()
    room.mkdir(parents=True)
    (room / ".venv").mkdir()
    (room / ".venv" / "lib").write_text("the caller's")
    out = sync(tree, room, manifest, wants, spare=frozenset({".venv"}))
    assert out.failed == ("gone.py",)
    assert (room / ".venv" / "lib").read_text() == "the caller's"
    assert (room / "placed.cfg").read_bytes() == b"cfg"


def test_wipe_removes_a_link_not_what_it_points_to(tmp_path: Path) -> None:
    kept = tmp_path / "kept"
    kept.mkdir()
    (kept / "f").write_text("f")
    (tmp_path / "link").symlink_to(kept)
    wipe(tmp_path / "link")
    assert not (tmp_path / "link").is_symlink() and (kept / "f").exists()
