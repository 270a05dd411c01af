"""The clean room (store/rooms/room.py): what it holds and leaves out, synced incrementally."""

from __future__ import annotations

import os
from pathlib import Path

from ralph.store.environments.envcopy import record_start_envs, start_envs
from ralph.store.rooms.room import RoomSource, build_room, record_start, rooms_dir
from tests.conftest import Project


def files_in(room: Path) -> set[str]:
    out = set()
    for dirpath, dirnames, filenames in os.walk(room):
        rel = Path(dirpath).relative_to(room).as_posix()
        for name in filenames + [d for d in dirnames if (Path(dirpath) / d).is_symlink()]:
            out.add(name if rel == "." else f"{rel}/{name}")
    return out


def started(project: Project) -> RoomSource:
    """The project committed, the run's start recorded; the source to build rooms from."""
    project.commit_all()
    source = RoomSource(project.root)
    record_start(project.root, source)
    return source


def test_the_room_holds_the_compared_files_and_nothing_else(git_project: Project) -> None:
    p = git_project
    p.write(
        {
            ".gitignore": "deps/\n*.log\n.env\n",
            "pkg/core.py": "x = 1\n",
            "pkg/__pycache__/core.cpython-311.pyc": "bytecode",
            "pkg/old.pyc": "sourceless, tracked",
            "tests/test_core.py": "def test(): pass\n",
        }
    )
    p.git("add", "-f", "pkg/old.pyc")
    source = started(p)
    p.write(
        {
            "deps/evil.py": "x = 2\n",
            "run.log": "ignored",
            ".env": "PYTEST_ADDOPTS=-k nothing\n",  # created by the agent: not the person's
            "new.py": "untracked, not ignored\n",
            ".git/evil.py": "hidden code",
            ".ralph/evil.py": "hidden code",
        }
    )
    (p.root / "tests" / "test_core.py").unlink()
    room = build_room(p.root, p.root, "main", source=source)
    assert files_in(room.path) == {".gitignore", "pkg/core.py", "new.py"}
    assert room.path.is_relative_to(rooms_dir(p.root))


def test_a_second_build_copies_only_what_changed_and_undoes_a_checks_writes(
    git_project: Project,
) -> None:
    p = git_project
    p.write({f"src/m{i}.py": f"v = {i}\n" for i in range(20)})
    source = started(p)
    first = build_room(p.root, p.root, "main", source=source)
    assert first.copied == 20
    # what a check run left: a new file, a changed one, a planted folder and link
    (first.path / "src" / "m0.py").write_text("v = 'tampered'\n")
    (first.path / "src" / "__pycache__").mkdir()
    (first.path / "src" / "__pycache__" / "m1.cpython-311.pyc").write_text("x")
    (first.path / "conftest.py").write_text("import os; os._exit(0)\n")
    (first.path / "link").symlink_to("/etc")
    (p.root / "src" / "m5.py").write_text("v = 'five'\n")
    (p.root / "src" / "m6.py").unlink()
    second = build_room(p.root, p.root, "main", source=source)
    assert (second.path / "src" / "m0.py").read_text() == "v = 0\n"
    assert (second.path / "src" / "m5.py").read_text() == "v = 'five'\n"
    assert files_in(second.path) == {f"src/m{i}.py" for i in range(20) if i != 6}
    # the racy window aside (files younger than 2 s are copied again), only what changed
    assert second.copied <= 2 + sum(1 for _ in (p.root / "src").iterdir())
    assert second.removed >= 4


def test_only_recently_written_files_are_copied_again(git_project: Project) -> None:
    p = git_project
    p.write({f"m{i}.py": "" for i in range(10)})
    old = 1_600_000_000
    for i in range(10):
        os.utime(p.root / f"m{i}.py", (old, old))
    source = started(p)
    build_room(p.root, p.root, "main", source=source)
    again = build_room(p.root, p.root, "main", source=source)
    assert again.copied == 0 and again.removed == 0


def test_links_stay_inside_the_room(git_project: Project) -> None:
    p = git_project
    p.write({"data/a.txt": "a"})
    (p.root / "inside").symlink_to("data/a.txt")
    (p.root / "outside").symlink_to("/etc/hostname")
    (p.root / "up").symlink_to("../secret")
    source = started(p)
    room = build_room(p.root, p.root, "main", source=source)
    assert (room.path / "inside").read_text() == "a"
    assert not (room.path / "outside").is_symlink() and not (room.path / "up").is_symlink()
    assert {"outside", "up"} <= {line.split(" ")[0] for line in room.left_out}


def test_a_link_that_leaves_by_way_of_other_links_is_left_out(git_project: Project) -> None:
    """`lk/e -> ../lk/a/up/../..` stays inside as written; `lk/a` and `d1/d2/up` are links
    that each stay inside too, yet the chain through them climbs out of the room."""
    p = git_project
    p.write({"d1/d2/f.txt": "f"})
    (p.root / "lk").mkdir()
    (p.root / "lk" / "a").symlink_to("../d1/d2")
    (p.root / "d1" / "d2" / "up").symlink_to("../..")
    (p.root / "lk" / "e").symlink_to("../lk/a/up/../..")
    (p.root / "lk" / "f").symlink_to("../lk/a/up/d1/d2/f.txt")  # the control: a chain inside
    source = started(p)
    room = build_room(p.root, p.root, "main", source=source)
    assert not (p.root / "lk" / "e").resolve().is_relative_to(p.root)  # it leads out
    assert not (room.path / "lk" / "e").is_symlink()
    assert "lk/e (a link whose target leaves the room)" in room.left_out
    assert (room.path / "lk" / "f").read_text() == "f"  # the control stays
    assert (room.path / "lk" / "a").is_symlink() and (room.path / "d1/d2/up").is_symlink()
    assert [line for line in room.left_out if "link" in line] == [
        "lk/e (a link whose target leaves the room)"
    ]


def test_replace_puts_other_bytes_or_leaves_a_file_out(git_project: Project) -> None:
    p = git_project
    p.write({"tests/test_a.py": "agent's\n", "tests/test_b.py": "agent's new\n"})
    source = started(p)
    b = build_room(
        p.root,
        p.root,
        "b",
        source=source,
        replace={"tests/test_a.py": b"person's\n", "tests/test_b.py": None},
    )
    assert (b.path / "tests" / "test_a.py").read_text() == "person's\n"
    assert not (b.path / "tests" / "test_b.py").exists()
    a = build_room(p.root, p.root, "main", source=source)
    assert (a.path / "tests" / "test_a.py").read_text() == "agent's\n"


def test_a_persons_ignored_file_is_copied_only_as_it_was_at_start(git_project: Project) -> None:
    p = git_project
    p.write({".gitignore": ".env\nlocal.cfg\n", ".env": "A=1\n", "local.cfg": "x"})
    source = started(p)
    room = build_room(p.root, p.root, "main", source=source)
    assert (room.path / ".env").read_text() == "A=1\n"
    (p.root / ".env").write_text("PYTEST_ADDOPTS=-k nothing\n")  # the agent's change
    room = build_room(p.root, p.root, "main", source=source)
    assert not (room.path / ".env").exists() and (room.path / "local.cfg").exists()
    assert any(line.startswith(".env ") for line in room.left_out)


def test_a_nested_repository_counts_only_when_it_was_there_at_start(git_project: Project) -> None:
    p = git_project
    p.write({"mine/lib.py": "x = 1\n", "a.py": ""})
    p.git("-C", "mine", "init", "-q")
    p.git("-C", "mine", "add", "-A")
    p.git("-C", "mine", "commit", "-qm", "mine")
    source = started(p)
    p.write({"theirs/calc.py": "def mean(x): return 2\n"})
    p.git("-C", "theirs", "init", "-q")
    room = build_room(p.root, p.root, "main", source=source)
    assert (room.path / "mine" / "lib.py").exists()
    assert not (room.path / "theirs").exists()
    assert "theirs/ (a repository that was not there when the run started)" in room.left_out


def test_ralphs_copy_of_the_environment_is_linked_and_a_planted_one_goes(
    git_project: Project,
) -> None:
    p = git_project
    p.write({".gitignore": ".venv/\n", "a.py": "", ".venv/pyvenv.cfg": "home = /usr\n"})
    p.write({".venv/bin/python": "#!/bin/sh\n"})
    source = started(p)
    record_start_envs(p.root)
    envs = start_envs(p.root)
    room = build_room(p.root, p.root, "main", source=source, envs=envs)
    assert (room.path / ".venv" / "bin").is_symlink()
    # ralph's copy, taken when the run began: never the project's own, the agent's to change
    assert (room.path / ".venv" / "bin").resolve() == (envs / ".venv" / "bin").resolve()
    (room.path / "venv").mkdir()  # a check planted an environment of its own
    (room.path / "venv" / "pyvenv.cfg").write_text("evil")
    room = build_room(p.root, p.root, "main", source=source, envs=envs)
    assert not (room.path / "venv").exists()
    assert (room.path / ".venv" / "bin").is_symlink()
    assert not build_room(p.root, p.root, "main.b", source=source).path.joinpath(".venv").exists()


def test_walk_mode_copies_the_walks_files(project: Project) -> None:
    p = project
    p.write({".gitignore": "deps/\n", "a.py": "", "deps/x.py": "", "b/__pycache__/c.pyc": ""})
    room = build_room(p.root, p.root, "main")
    assert files_in(room.path) == {".gitignore", "a.py"}


def test_a_forged_manifest_does_not_keep_a_checks_change(git_project: Project) -> None:
    import json

    p = git_project
    p.write({"calc.py": "wrong = True\n"})
    source = started(p)
    room = build_room(p.root, p.root, "main", source=source)
    # a check's code rewrites its copy, and the manifest beside the room to match
    (room.path / "calc.py").write_text("wrong = 0000\n")
    manifest_file = room.path.parent / "manifest.json"
    data = json.loads(manifest_file.read_text())
    st = os.lstat(room.path / "calc.py")
    data["files"]["calc.py"][2] = [
        st.st_size,
        st.st_mtime_ns,
        st.st_ctime_ns,
        st.st_ino,
        st.st_mode,
    ]
    manifest_file.write_text(json.dumps(data))
    room = build_room(p.root, p.root, "main", source=source)
    assert (room.path / "calc.py").read_text() == "wrong = True\n"


def test_build_output_a_person_ignores_is_not_copied(git_project: Project) -> None:
    p = git_project
    p.write({".gitignore": "*.o\n*.log\n.env\n", "a.c": "", "a.o": "obj", "x.log": "", ".env": ""})
    source = started(p)
    room = build_room(p.root, p.root, "main", source=source)
    assert files_in(room.path) == {".gitignore", "a.c", ".env"}


def test_a_replacement_outside_the_room_is_refused(git_project: Project) -> None:
    import pytest

    p = git_project
    p.write({"a.py": ""})
    source = started(p)
    for bad in ("../escape.py", "/etc/x", "a/../../b", ".git/hooks/pre-commit"):
        with pytest.raises(ValueError, match="inside it"):
            build_room(p.root, p.root, "b", source=source, replace={bad: b"x"})
    assert not (p.root.parent / "escape.py").exists()


def test_a_persons_submodule_is_copied_by_ralphs_walk_never_by_its_git(
    git_project: Project, tmp_path: Path
) -> None:
    p = git_project
    origin, ran = tmp_path / "lib-origin", tmp_path / "ran"
    origin.mkdir()
    p.git("-C", str(origin), "init", "-q")
    (origin / "lib.py").write_text("x = 1\n")
    (origin / ".gitattributes").write_text("*.py filter=x\n")
    p.git("-C", str(origin), "add", "-A")
    p.git("-C", str(origin), "commit", "-qm", "lib")
    p.write({"a.py": ""})
    p.git("-c", "protocol.file.allow=always", "submodule", "add", "-q", str(origin), "lib")
    source = started(p)
    p.git("-C", "lib", "config", "filter.x.clean", f"sh -c 'touch {ran}; cat'")
    p.write({"lib/lib.py": "x = 2\n"})  # same size: git would read it through the filter
    room = build_room(p.root, p.root, "main", source=source)
    assert (room.path / "lib" / "lib.py").read_text() == "x = 2\n"
    assert not (room.path / "lib" / ".git").exists()
    assert not ran.exists()
