"""What the environments a check may use hold: scanned when a run starts (kept in the private
store as `environment.json`, out of the agent's reach) and again at a DONE that would count.

The folders: the site-packages of every environment `ralph.process.treecode` says a check may
run Python in (the project's `.venv`/`venv`/`env`, the active `VIRTUAL_ENV`, the `python` on
PATH, the user site; ralph's own only when it is one of those), the standard library's top
level, `__pycache__` and `unittest/` of those interpreters, and the project's
`node_modules/.bin` and test runners' packages. Every file gives a stat key (size, mtime_ns,
ctime_ns); the files the rules read (`rules/envchange.py`) give their text too. A
site-packages of 5,000 files scans in some 30 ms.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import marshal
import os
import shutil
import sys
import sysconfig
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ralph.errors import StateError
from ralph.process.treecode import NODE_MODULES, PROJECT_VENVS, _site_dirs, _sites
from ralph.rules.envchange import (
    NODE,
    NODE_RUNNERS,
    RUNNER_DISTS,
    SITE,
    STARTUP_MODULES,
    STARTUP_SUFFIX,
    STDLIB,
    VENV,
    Folder,
    Stat,
    dist_name,
)
from ralph.rules.treecode import pth_paths
from ralph.store.files import load_json, write_text_atomic
from ralph.store.private import ensure_store, store_dir

RECORD_FILE = "environment.json"
VERSION = 1
MAX_TEXT = 1 << 20  # a RECORD or .pth larger than this is read no further
STDLIB_PARTS = ("__pycache__", "unittest")  # with the top-level modules: what runs a test run

Scan = dict[str, Folder]  # absolute folder -> what it holds


def places(project: Path, env: Mapping[str, str]) -> dict[str, str]:
    """The folders to scan, with their kind. The user site always: an agent's
    `usercustomize.py` there is refused whether or not the checks would load it."""
    full = {k: v for k, v in env.items() if k != "PYTHONNOUSERSITE"}
    own = (
        set()
        if _checks_use_ours(full, project)
        else {s.resolve() for s in _sites(Path(sys.prefix))}
    )
    out: dict[str, str] = {}
    for site in _site_dirs(full, project):
        if site.resolve() not in own:
            out.setdefault(str(site.resolve()), SITE)
    for lib in _stdlibs(full, project):
        out.setdefault(str(lib), STDLIB)
    for prefix in _prefixes(full, project):
        if (prefix / "pyvenv.cfg").is_file():
            out.setdefault(str(prefix.resolve()), VENV)
    if (project / NODE_MODULES).is_dir():
        out[str((project / NODE_MODULES).resolve())] = NODE
    return out


def _checks_use_ours(env: Mapping[str, str], project: Path) -> bool:
    """Is ralph's own interpreter one a check runs (the `python` on PATH, the active or the
    project's virtualenv)? If not, its site-packages is not the checks' to bend."""
    ours = Path(sys.prefix).resolve()
    return any(_same(prefix, ours) for prefix in _prefixes(env, project))


def _same(prefix: Path, ours: Path) -> bool:
    try:
        return prefix.resolve() == ours
    except OSError:
        return False


def scan(project: Path, env: Mapping[str, str], also: Mapping[str, str] | None = None) -> Scan:
    """Every folder of `places` (and `also`: the ones recorded at start, which may be gone)."""
    where = {**(also or {}), **places(project, env)}
    return {place: scan_folder(Path(place), kind) for place, kind in sorted(where.items())}


def scan_folder(folder: Path, kind: str) -> Folder:
    files: dict[str, Stat] = {}
    texts: dict[str, str] = {}
    if kind == SITE:
        _walk(folder, "", files)
        _site_texts(folder, files, texts)
    elif kind == VENV:  # its settings and commands: a `bin/python` swapped for a script
        _walk(folder, "", files, depth=0)
        _walk(folder / "bin", "bin/", files, depth=0)
        texts.update(_links(folder, files))
        texts["pyvenv.cfg"] = read(folder / "pyvenv.cfg")
    elif kind == STDLIB:
        _walk(folder, "", files, depth=0)
        for part in STDLIB_PARTS:
            _walk(folder / part, f"{part}/", files)
    else:
        _walk(folder / ".bin", ".bin/", files)
        texts.update(_links(folder, files))
        for runner in NODE_RUNNERS:
            _walk(folder / runner, f"{runner}/", files)
    return Folder(kind, files, texts)


def _links(folder: Path, files: Mapping[str, Stat]) -> dict[str, str]:
    """Where each link among `files` points: a command's link is what it runs."""
    out: dict[str, str] = {}
    for name in files:
        with contextlib.suppress(OSError):
            out[name] = str((folder / name).readlink())
    return out


def _walk(folder: Path | str, prefix: str, files: dict[str, Stat], depth: int = -1) -> None:
    """Every file (links included, not followed) below `folder`; `depth` 0: its own only.
    Plain strings and scandir's cached types: this is the cost of a DONE."""
    try:
        with os.scandir(folder) as found:
            entries = list(found)
    except OSError:
        return
    for entry in entries:
        try:
            if entry.is_dir(follow_symlinks=False):
                if depth != 0:
                    _walk(entry.path, f"{prefix}{entry.name}/", files, depth - 1)
                continue
            st = entry.stat(follow_symlinks=False)
        except OSError:
            continue
        files[prefix + entry.name] = (st.st_size, st.st_mtime_ns, st.st_ctime_ns)


def _site_texts(folder: Path, files: Mapping[str, Stat], texts: dict[str, str]) -> None:
    for name in files:
        if "/" not in name and name.endswith(".pth"):
            text = texts[name] = read(folder / name)
            startup = _startup(pth_paths(text, str(folder)))
            if startup:
                texts[name + STARTUP_SUFFIX] = "\n".join(startup)
            for line in text.splitlines():  # the module an `import` line runs: a finder
                if line.startswith("import "):
                    module = line[len("import ") :].split(";")[0].split(",")[0].strip()
                    if f"{module}.py" in files:
                        texts[f"{module}.py"] = read(folder / f"{module}.py")
        elif name.endswith(".dist-info/entry_points.txt"):
            texts[name] = read(folder / name)
    plugins = {p.split("/")[0] for p, t in texts.items() if "[pytest11]" in t}
    for name in files:
        if not name.endswith(".dist-info/RECORD") or name.count("/") != 1:
            continue
        info = name.partition("/")[0]
        if dist_name(info) in RUNNER_DISTS or info in plugins:
            texts[name] = read(folder / name)


def _startup(folders: list[str]) -> list[str]:
    """The modules Python runs at start (`sitecustomize`, `usercustomize`) in the folders a
    .pth file puts on sys.path: found there, they run as if they were in site-packages."""
    found: list[str] = []
    for folder in folders:
        for name in STARTUP_MODULES:
            for candidate in (f"{name}.py", name, f"{name}.pyc"):
                path = Path(folder, candidate)
                if path.exists():
                    found.append(str(path))
    return found


def read(path: Path) -> str:
    try:
        with path.open("rb") as f:
            return f.read(MAX_TEXT).decode("utf-8", errors="replace")
    except OSError:
        return ""


def _prefixes(env: Mapping[str, str], project: Path) -> list[Path]:
    """The prefixes of the environments a check may run Python in (as `_site_dirs` finds
    them): the active virtualenv, the project's, the `python` on PATH."""
    prefixes = [Path(env["VIRTUAL_ENV"])] if env.get("VIRTUAL_ENV") else []
    prefixes += [project / name for name in PROJECT_VENVS]
    for exe in ("python3", "python"):
        found = shutil.which(exe, path=env.get("PATH", ""))
        if found:
            prefixes.append(Path(found).parent.parent)  # not resolved: a venv's python links out
    return prefixes


def _stdlibs(env: Mapping[str, str], project: Path) -> Iterator[Path]:
    """The standard library of ralph's interpreter and of every virtualenv's base one."""
    yield Path(sysconfig.get_paths()["stdlib"]).resolve()
    for prefix in _prefixes(env, project):
        cfg = _pyvenv(prefix / "pyvenv.cfg")
        home, version = cfg.get("home"), cfg.get("version_info") or cfg.get("version")
        if home and version:
            lib = Path(home).parent / "lib" / ("python" + ".".join(version.split(".")[:2]))
            if lib.is_dir():
                yield lib.resolve()


def _pyvenv(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in read(path).splitlines():
        key, sep, value = line.partition("=")
        if sep:
            out[key.strip()] = value.strip()
    return out


def bytecode_ok(folder: Path, rel: str) -> bool:
    """Is `folder/rel` (a `__pycache__/*.pyc`) what its source compiles to, for this
    interpreter? Bytecode for another one cannot be checked here: not taken."""
    pyc = folder / rel
    parent, _, name = rel.rpartition("__pycache__/")
    stem, _, rest = name.partition(".")
    tag, _, opt = rest.removesuffix(".pyc").partition(".")
    if tag != sys.implementation.cache_tag:
        return False
    source = folder / parent / f"{stem}.py"
    try:
        data, text = pyc.read_bytes(), source.read_bytes()
        if data[:4] != importlib.util.MAGIC_NUMBER:
            return False
        level = int(opt.removeprefix("opt-")) if opt.startswith("opt-") else 0
        found = marshal.loads(data[16:])
        expected = compile(text, str(source), "exec", dont_inherit=True, optimize=level)
    except (OSError, ValueError, EOFError, TypeError, SyntaxError):
        return False
    return bool(found == expected)  # code objects compare by what they run, not by file name


def save(root: Path, found: Scan) -> None:
    data = {
        "version": VERSION,
        "folders": {
            place: {"kind": f.kind, "files": f.files, "texts": f.texts}
            for place, f in found.items()
        },
    }
    text = json.dumps(data, separators=(",", ":"))  # some 10k entries: no indent
    write_text_atomic(ensure_store(root) / RECORD_FILE, text, durable=False)


def load(root: Path) -> Scan | None:
    """The scan recorded at start; None when there is none (or it is not one ralph wrote)."""
    path = store_dir(root) / RECORD_FILE
    if not path.is_file():
        return None
    try:
        data: Any = load_json(path, "ralph's record of the environments")
        if data.get("version") != VERSION:
            return None
        folders: dict[str, Any] = data["folders"]
        return {
            place: Folder(
                f["kind"],
                {k: (int(v[0]), int(v[1]), int(v[2])) for k, v in f["files"].items()},
                {k: str(v) for k, v in f["texts"].items()},
            )
            for place, f in folders.items()
        }
    except (StateError, LookupError, TypeError, ValueError, AttributeError):
        # a damaged record is taken again, never a crash
        return None
