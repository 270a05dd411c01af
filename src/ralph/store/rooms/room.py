"""The clean room: where the checks that decide run, a copy of exactly the files ralph compares.

A check run in the working tree takes the agent's word for everything the snapshot does not
compare: bytecode in `__pycache__/` (the interpreter runs it when the source is left wrong), a
`.env` the Makefile includes, code in an ignored `deps/` folder, under `.git/` or `.ralph/`, in
a repository the agent nested in the tree. The room holds the files the snapshot compares, as
they are on disk (`Snapshotter.room_files`: in git mode the index's files plus the snapshot's
entries, minus deleted ones; in walk mode the walk's), and nothing else:
- never `.git/`, `.ralph/`, bytecode (`*.pyc`, `*.pyo`, `__pycache__/`: a sourceless `.pyc` is
  importable even when tracked), nor anything the person's ignore rules leave out;
- a nested repository or submodule only when it was there when the run started
  (`record_start`); a link only when its target stays inside the room (`Room.left_out`);
- a person's own ignored files that git lists one by one (`.env`, `local.cfg`; not ignored
  folders) only while they are as they were when the run started (stat and sha256 recorded in
  the private store): one the agent created or changed is left out;
- the environments the checks use (`.venv`, `venv`, `env`, `node_modules`) as folders of
  links to ralph's copies of the project's (store/environments/envcopy.py, ralph.process.treecode),
  made
  afresh at every build: never to the project's own, which the agent may change.
It lives in the private store (`<store>/rooms/<name>/tree`, hidden by every sandbox profile),
and is synced incrementally (store/rooms/roomsync.py). `replace` puts other bytes at a path, or
leaves
it out: the person's tests against the agent's code (checks/persontests.py).
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Mapping
from dataclasses import dataclass
from fnmatch import fnmatchcase
from pathlib import Path

from ralph.errors import StateError
from ralph.process.treecode import NODE_MODULES, PROJECT_VENVS, link_environments
from ralph.rules.environment.links import resolved
from ralph.store.disk.files import load_json, write_json_atomic
from ralph.store.disk.private import ensure_store, store_dir
from ralph.store.repository.git import GitLock
from ralph.store.rooms.roomfile import Want, like_file, racy_from, want_bytes, want_file
from ralph.store.rooms.roomsync import sync, wipe
from ralph.store.snapshots.ignore import SCAFFOLD_GLOBS, SCAFFOLD_NAMES, stat_key
from ralph.store.snapshots.snapshotter import Snapshotter

ROOMS = "rooms"
START_FILE = "start.json"
MAX_IGNORED_BYTES = 10 << 20  # a person's ignored file larger than this is data, not settings
MAX_IGNORED_FILES = 1_000  # read at every build: settings files are few, build output is not
ENVIRONMENTS = frozenset((*PROJECT_VENVS, NODE_MODULES))


@dataclass(frozen=True)
class Room:
    path: Path  # the copy: where the checks run
    copied: int = 0  # files made by this build (a first build copies everything)
    removed: int = 0  # files and folders removed: a check's leftovers, deleted sources
    left_out: tuple[str, ...] = ()  # what the tree has that the room does not, and why


class RoomSource:
    """The files of one tree as its snapshot compares them, listed by one Snapshotter kept
    between builds (its stat cache keeps the next listing cheap)."""

    def __init__(self, tree: Path, lock: GitLock | None = None) -> None:
        self.tree = tree
        # the run's own reads the index; its git commands hold the run's lock
        self.snapshotter = Snapshotter(tree, refresh=False, lock=lock)
        self.manifests: dict[str, dict[str, list[object]]] = {}  # room name -> its last sync's

    def listing(self) -> tuple[list[str], list[str]]:
        """(the files, the nested repositories and submodules), root-relative."""
        return self.snapshotter.room_files(self.snapshotter.take())


def rooms_dir(project: Path) -> Path:
    return store_dir(project) / ROOMS


def never_in_room(rel: str) -> bool:
    """Version control, ralph's own folder and bytecode: never copied, even when tracked."""
    parts = rel.split("/")
    if parts[0] == ".ralph" or any(p in (".git", "__pycache__") for p in parts):
        return True
    return parts[-1].endswith((".pyc", ".pyo"))


def record_start(project: Path, source: RoomSource) -> None:
    """When a run starts: the nested repositories there are (a person's), and the person's
    ignored files with their stat and sha256, so a room copies only those left as they were."""
    _, nested = source.listing()
    ignored: dict[str, list[object]] = {}
    for rel in source.snapshotter.person_ignored:
        if len(ignored) >= MAX_IGNORED_FILES:
            break
        if never_in_room(rel) or _tool_output(rel):
            continue
        data = _small_file(project / rel)
        if data is not None:
            ignored[rel] = [*(stat_key(project / rel) or ()), hashlib.sha256(data).hexdigest()]
    folder = rooms_dir(project)
    ensure_store(project)
    folder.mkdir(mode=0o700, exist_ok=True)
    write_json_atomic(folder / START_FILE, {"nested": nested, "ignored": ignored}, durable=False)


def build_room(
    tree: Path,
    project: Path,
    name: str,
    *,
    replace: Mapping[str, bytes | None] | None = None,
    source: RoomSource | None = None,
    envs: Path | None = None,
) -> Room:
    """The room `name` of `tree` (the project, or a lane's worktree of it), built or synced
    now; `replace`: root-relative path -> the bytes to place there instead, or None to leave
    it out. Pass the same `source` to every build of one tree. `envs`: the folder holding the
    environments the room links to (ralph's copies, store/environments/envcopy.py; none when None).
    StateError when it cannot be made."""
    source = source if source is not None else RoomSource(tree)
    folder = rooms_dir(project) / name
    wants, left_out = _wants(tree, project, source)
    for rel, data in (replace or {}).items():
        if _outside(rel):
            raise ValueError(f"a room's replacement must be a path inside it: {rel!r}")
        if data is None:
            wants.pop(rel, None)
            continue
        # as the tree's file is (its mode and times), and written anew at every build: the
        # bytes are the only thing a check could tell apart (the mutants, the old code)
        had = wants.get(rel)
        like = like_file(tree / rel) if had is not None and had.kind == "file" else None
        mode, times = like if like is not None else (0o644, None)
        wants[rel] = want_bytes(data, mode, times=times, fresh=True)
    spare = frozenset(ENVIRONMENTS - {rel.split("/")[0] for rel in wants})
    room = folder / "tree"
    ensure_store(project)
    rooms_dir(project).mkdir(mode=0o700, exist_ok=True)
    manifest = folder / "manifest.json"
    try:
        try:
            synced = sync(tree, room, manifest, wants, spare, source.manifests.get(name))
        except OSError:  # a check left something a sync cannot walk: start afresh
            wipe(room)
            manifest.unlink(missing_ok=True)
            synced = sync(tree, room, manifest, wants, spare, {})
        if synced.manifest is not None:
            source.manifests[name] = synced.manifest
        for env in spare:
            wipe(room / env)  # a check may have planted one: only the project's is linked
        if envs is not None:
            link_environments(room, envs, ignored_only=False)
    except OSError as exc:
        raise StateError(
            f"cannot build the clean room at {room}: {exc.strerror or exc}",
            "check the free space and permissions of ralph's state folder",
        ) from exc
    left_out += [f"{rel} (could not be copied)" for rel in synced.failed]
    return Room(room, synced.copied, synced.removed, tuple(left_out))


def _wants(tree: Path, project: Path, source: RoomSource) -> tuple[dict[str, Want], list[str]]:
    racy = racy_from()
    start = _start(project)
    wants: dict[str, Want] = {}
    left_out: list[str] = []

    def add(root: Path, prefix: str, files: list[str]) -> None:
        folder = str(root).rstrip(os.sep) + os.sep
        for rel in files:
            full = prefix + rel
            if never_in_room(full):
                continue
            want = want_file(folder, rel, racy)
            if want is not None:
                wants[full] = want

    files, nested = source.listing()
    add(tree, "", files)
    for rel in nested:
        if rel not in start[0] or never_in_room(rel):
            left_out.append(f"{rel}/ (a repository that was not there when the run started)")
            continue
        add(tree / rel, rel + "/", source.snapshotter.nested_files(rel))
    for rel, record in start[1].items():
        if rel in wants or never_in_room(rel):
            continue
        data = _small_file(project / rel)
        if data is not None and hashlib.sha256(data).hexdigest() == record[-1]:
            wants[rel] = want_bytes(data)
        elif (project / rel).exists() or (project / rel).is_symlink():
            left_out.append(f"{rel} (ignored, and changed since the run started)")
    # a link is judged by where its whole chain leads, other links of the room on the way
    links = {rel: os.fsdecode(w.data) for rel, w in wants.items() if w.kind == "link"}
    for rel in sorted(links):
        if _escapes(rel, links):
            left_out.append(f"{rel} (a link whose target leaves the room)")
            del wants[rel]
    return wants, left_out


def _tool_output(rel: str) -> bool:
    """Build and cache output (`*.o`, `*.log`, files in `build/` or `.venv/`): a person's
    settings file (`.env`) is none of it."""
    parts = rel.split("/")
    if any(part in SCAFFOLD_NAMES for part in parts[:-1]):
        return True
    return any(fnmatchcase(parts[-1], glob) for glob in SCAFFOLD_GLOBS)


def _outside(rel: str) -> bool:
    parts = rel.split("/")
    return rel.startswith("/") or "" in parts or "." in parts or ".." in parts or never_in_room(rel)


def _escapes(rel: str, links: Mapping[str, str]) -> bool:
    """Does the link at `rel` lead outside the room, by its own target or by the links on
    its way (rules/environment/links.py)? Into an environment's folder counts: the room's is the
    checks'
    environment, not the tree's."""
    end = resolved(rel, links, ENVIRONMENTS)
    return end is None or never_in_room(end)


def _start(project: Path) -> tuple[frozenset[str], dict[str, list[object]]]:
    """What `record_start` saw; nothing (no nested repository, no ignored file) without it."""
    try:
        data = load_json(rooms_dir(project) / START_FILE, "the clean room's start record")
    except StateError:
        data = None
    if not isinstance(data, dict):
        return frozenset(), {}
    nested, ignored = data.get("nested"), data.get("ignored")
    if not isinstance(nested, list) or not isinstance(ignored, dict):
        return frozenset(), {}
    names = frozenset(n for n in nested if isinstance(n, str))
    return names, {k: v for k, v in ignored.items() if isinstance(v, list) and v}


def _small_file(path: Path) -> bytes | None:
    """A regular file's bytes (never through a link), None when absent or too large."""
    try:
        fd = os.open(
            path, os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0)
        )
    except OSError:
        return None
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if not (stat.S_ISREG(st.st_mode) and st.st_size <= MAX_IGNORED_BYTES):
            return None
        return f.read(MAX_IGNORED_BYTES + 1)[:MAX_IGNORED_BYTES]
