"""The environment the checks run in is ralph's own: the project's environments as they were
when the run began, copied into the private store.

A project's virtualenv (`.venv`, `venv`, `env`) and its `node_modules` are ignored by git, so
the snapshot never compares them, and an agent could change what a check runs there (a `.pth`
that patches the code, a `bin/python` swapped for a script, code kept in a folder of the
virtualenv) without the counter seeing it. So when a run starts, each of them is copied whole
to `<store>/envs/start/<name>`, by content (store/rooms/roomsync.py: a run after an unchanged one
copies nothing), and the rooms the checks run in link to the copy, never to the project's:
what the agent does to the project's environments during the run reaches no check. A run
after one that was killed keeps the copy it has (what that run's agent changed stays out).

Nor does it reach a later run's: a file whose change time falls in a span when a run was live
(store/environments/runspans.py) is the agent's, so the copy keeps the version it had (or stays
without
it), and a file gone while a run was live (its folder changed then) stays in the copy. What
changed while no run was live is the person's and is taken: a reinstall, or a new
environment, after the run ended.

A virtualenv names its own folder in its commands (`#!/…/.venv/bin/python`): the copy's
commands name the copy. What the tree declares beyond it (a dependency the agent added) is
store/environments/envbuild.py's.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass, field
from pathlib import Path

from ralph.errors import StateError
from ralph.process.treecode import NODE_MODULES, PROJECT_VENVS
from ralph.store.disk.private import ensure_store, store_dir
from ralph.store.environments.declared import read_declared
from ralph.store.environments.runspans import Spans, load_spans
from ralph.store.rooms.roomfile import Key, Want, racy_from, want_bytes, want_file
from ralph.store.rooms.roomsync import load_manifest, sync, wipe

ENVS = "envs"
START = "start"
TAKEN = "taken"  # written last: a copy cut short is taken again, never used half-made
MAX_SCRIPT = 1 << 16  # a command larger than this is a program, not a script naming its venv
DECLARING = ("pyproject.toml", "setup.cfg", "setup.py")  # a Python project's own files
START_DIGEST = "declared.txt"  # what the project declared when the copies were taken
START_NODE = "declared-node.txt"  # and for Node (package.json, its lockfile)


def envs_dir(project: Path) -> Path:
    return store_dir(project) / ENVS


def start_envs(project: Path) -> Path:
    """The folder that holds the copies (`.venv`, `node_modules`... as in the project)."""
    return envs_dir(project) / START


@dataclass(frozen=True)
class Taken:
    names: list[str]  # the environments copied
    held: list[str] = field(default_factory=list)  # files left as they were ("<name>/<path>")


def record_start_envs(project: Path, *, keep: bool = False) -> Taken:
    """When a run starts: copy the project's environments (those it has now; a copy of one
    that is gone goes), but for what changed while a run was live. `keep`: the last run was
    killed, keep the copies there are."""
    folder = start_envs(project)
    if keep and (folder / TAKEN).is_file():
        return Taken([p.name for p in folder.iterdir() if p.is_dir()])
    ensure_store(project)
    spans = load_spans(envs_dir(project))
    held: list[str] = []
    folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    (folder / TAKEN).unlink(missing_ok=True)
    copied: list[str] = []
    for name in (*PROJECT_VENVS, NODE_MODULES):
        source, copy = project / name, folder / name
        manifest = folder / f"{name}.manifest.json"
        wanted = source.is_dir()
        if name != NODE_MODULES:
            wanted = wanted and (source / "pyvenv.cfg").is_file()
        elsewhere = _elsewhere(source, project) if wanted else None
        if not wanted or elsewhere is not None:
            wipe(copy)
            manifest.unlink(missing_ok=True)
            if elsewhere is not None:  # outside the project: the system's, read as it is
                copy.symlink_to(elsewhere, target_is_directory=True)
                copied.append(name)
            continue
        wants = _wants(source, copy)
        had = load_manifest(manifest)
        if spans:
            wants, kept_out = _held_out(source, copy, wants, had, spans)
            held += [f"{name}/{rel}" for rel in kept_out]
        try:
            sync(source, copy, manifest, wants, known=had)
        except OSError:
            wipe(copy)
            manifest.unlink(missing_ok=True)
            try:
                sync(source, copy, manifest, wants, known={})
            except OSError as exc:
                raise StateError(
                    f"cannot copy {source} into ralph's store: {exc.strerror or exc}",
                    "check the free space and permissions of ralph's state folder",
                ) from exc
        copied.append(name)
    declared = read_declared(project)
    _start_digest(project, folder / START_DIGEST, declared.digest, declared.files, spans)
    (folder / TAKEN).write_text("")
    return Taken(copied, held)


def record_start_digest(
    project: Path, name: str, digest: str, files: list[str], *, keep: bool = False
) -> None:
    """When a run starts: what the copies were made for, of another language's declaration
    (`name` in the start folder; `keep`: the last run was killed, what it recorded stays)."""
    path = start_envs(project) / name
    if keep and path.is_file():
        return
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    _start_digest(project, path, digest, files, load_spans(envs_dir(project)))


def _start_digest(project: Path, path: Path, digest: str, files: list[str], spans: Spans) -> None:
    """Record at `path` what the copies were made for: the tree's declaration now (`digest`,
    read from `files`), unless a file of it changed while a run was live (the last run's agent
    added a dependency): then the person's environments still hold what was declared before,
    and a DONE builds what the agent added."""
    try:
        before = path.read_text()
    except OSError:
        before = None
    for name in files if before is not None else ():
        try:
            if spans.live(os.lstat(project / name).st_ctime_ns):
                return  # what was recorded stays
        except OSError:
            continue
    path.write_text(digest)


def _held_out(
    source: Path, copy: Path, wants: dict[str, Want], had: dict[str, Key], spans: Spans
) -> tuple[dict[str, Want], list[str]]:
    """`wants` but for the files changed, made or deleted while a run was live: for those,
    what the copy holds (by the manifest of its last sync, `had`). And their paths."""
    out: dict[str, Want] = {}
    held: list[str] = []
    known = {rel[:end] for rel in had for end in _slashes(rel)}  # the copy's folders
    folders: dict[str, int] = {}  # a new folder's change time, looked up once
    for rel, want in wants.items():
        try:
            changed = want.key[2] if want.kind == "file" else os.lstat(source / rel).st_ctime_ns
            live = spans.live(changed)
            if not live and rel not in had:  # a folder moved in keeps its files' times
                live = any(spans.live(_changed(source, f, folders)) for f in _new(rel, known))
        except OSError:
            live = True  # gone since it was listed: as if deleted now
        if not live:
            out[rel] = want
            continue
        held.append(rel)
        kept = _kept(copy, rel, had.get(rel))
        if kept is not None:
            out[rel] = kept
    for rel, entry in had.items():
        if rel in wants or not spans.live(_folder_changed(source, rel)):
            continue
        held.append(rel)  # deleted while a run was live: the copy keeps it
        kept = _kept(copy, rel, entry)
        if kept is not None:
            out[rel] = kept
    return out, sorted(held)


def _kept(copy: Path, rel: str, entry: Key | None) -> Want | None:
    """The Want that keeps the copy's `rel` as its last sync made it (none when it had none)."""
    if not isinstance(entry, list) or len(entry) != 3 or not isinstance(entry[1], list):
        return None
    kind, key = entry[0], entry[1]
    if kind == "file":
        return Want("file", key)  # kept while the copy is intact; never made from the source
    if kind == "link" and key and isinstance(key[0], str):
        return Want("link", key, os.fsencode(key[0]))
    if kind == "bytes" and len(key) >= 2 and isinstance(key[1], int):
        try:
            data = (copy / rel).read_bytes()
        except OSError:
            return None
        if hashlib.sha256(data).hexdigest() == key[0]:
            return Want("bytes", key, data, key[1])
    return None


def _slashes(rel: str) -> list[int]:
    return [i for i, c in enumerate(rel) if c == "/"]


def _new(rel: str, known: set[str]) -> list[str]:
    """The folders of `rel` the copy has no file in, from the file up: a folder renamed (or
    made) while a run was live has its change time then, the files it carries their own."""
    out: list[str] = []
    for end in reversed(_slashes(rel)):
        if rel[:end] in known:
            break
        out.append(rel[:end])
    return out


def _changed(source: Path, rel: str, seen: dict[str, int]) -> int:
    if rel not in seen:
        seen[rel] = os.lstat(source / rel).st_ctime_ns
    return seen[rel]


def _folder_changed(source: Path, rel: str) -> int:
    """The change time of the nearest folder of `source/rel` that is still there."""
    path = (source / rel).parent
    while True:
        try:
            return os.lstat(path).st_ctime_ns
        except OSError:
            if path in (source, path.parent):
                return -1
            path = path.parent


def declared_here(tree: Path) -> bool:
    """Does `tree` declare a Python project (a `pyproject.toml`, `setup.py` or `setup.cfg`)?"""
    return any((tree / name).is_file() for name in DECLARING)


def _elsewhere(source: Path, project: Path) -> Path | None:
    """Where a link `source` (a `.venv` kept outside the project) leads, when that is outside
    the project; None for a real folder. A link into the project is copied like a folder."""
    if not source.is_symlink():
        return None
    target, root = source.resolve(), project.resolve()
    return None if root in target.parents else target


def _wants(source: Path, copy: Path) -> dict[str, Want]:
    """Every file and link of `source` (links as they are, never followed); the commands of
    a virtualenv's `bin/` that name its folder, naming the copy's."""
    racy = racy_from()
    prefix = str(source).rstrip(os.sep) + os.sep
    out: dict[str, Want] = {}
    for folder, dirs, names in os.walk(source):
        rel_dir = os.path.relpath(folder, source)
        base = "" if rel_dir == "." else rel_dir.replace(os.sep, "/") + "/"
        for d in [d for d in dirs if Path(folder, d).is_symlink()]:
            dirs.remove(d)  # a link to a folder is copied as a link
            names.append(d)
        for name in names:
            want = want_file(prefix, base + name, racy)
            if want is not None:
                out[base + name] = want
    own, moved = os.fsencode(str(source)), os.fsencode(str(copy))
    for rel, want in list(out.items()):
        if rel.startswith(("bin/", "Scripts/")) and want.kind == "file":
            data = _script(source / rel)
            if data is not None and own in data:
                out[rel] = want_bytes(data.replace(own, moved), 0o755)
        elif rel.endswith(".pth") and want.kind == "file" and _site_file(rel):
            text = _pth(source / rel)
            if text is not None:
                kept = _relative_lines(text, source.parent, (source / rel).parent)
                if kept != text:
                    out[rel] = want_bytes(kept.encode())
    return out


def _site_file(rel: str) -> bool:
    """Is `rel` a file at the top of a virtualenv's site-packages (where Python reads .pth)?"""
    parts = rel.split("/")
    return parts[-2:-1] == ["site-packages"] and len(parts) in (3, 4)


def _relative_lines(text: str, project: Path, site: Path) -> str:
    """A .pth file's lines that name a folder of the project, relative to its site-packages:
    in a room, where the virtualenv sits at the same place, they name the room's folder,
    never the project's (which the agent may change, or keeps ignored files in)."""
    out: list[str] = []
    project, site = project.resolve(), site.resolve()
    for line in text.splitlines(keepends=True):
        path = line.strip()
        inside = Path(path)
        if path.startswith(("#", "import ", "import\t")) or not inside.is_absolute():
            out.append(line)
        elif project in inside.parents or inside == project:
            out.append(os.path.relpath(inside, site) + "\n")
        else:
            out.append(line)
    return "".join(out)


def _pth(path: Path) -> str | None:
    try:
        with path.open("rb") as f:
            data = f.read(MAX_SCRIPT + 1)
    except OSError:
        return None
    return data.decode("utf-8", errors="replace") if len(data) <= MAX_SCRIPT else None


def _script(path: Path) -> bytes | None:
    try:
        with path.open("rb") as f:
            data = f.read(MAX_SCRIPT + 1)
    except OSError:
        return None
    return data if data.startswith(b"#!") and len(data) <= MAX_SCRIPT else None
