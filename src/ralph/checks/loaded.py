"""What a test run loads that the agent added: a DONE is refused while a file the agent added
or changed since the run began shadows a module of the test run (rules/evidence/shadowing.py) or, in
code that is not a test file, patches the test harness (rules/evidence/harnesspatch.py) or reads the
tests that call it (rules/evidence/callers.py: their frames or source). A person's own files,
present
when the run began, are never refused for this."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterable, Iterator
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.checks.testguard import TestGuard
from ralph.errors import RalphError, StateError
from ralph.process.launcher import Launcher
from ralph.process.request import ProcessRequest
from ralph.process.spawn import StartError
from ralph.process.treecode import site_dirs
from ralph.rules.evidence.callers import caller_reads
from ralph.rules.evidence.exits import import_exits
from ralph.rules.evidence.harnesspatch import harness_patches
from ralph.rules.evidence.shadowing import import_folders, module_of, plugin_modules, shadowing
from ralph.rules.evidence.testfiles import is_test as matches
from ralph.specs.frontmatter import SpecMeta
from ralph.store.disk import reader
from ralph.store.environments.envbuild import SITES
from ralph.store.environments.envcopy import envs_dir

if TYPE_CHECKING:
    from ralph.checks.place import CheckPlace

LOADED_HINT = (
    "remove or rename what the agent added; a file a person keeps is theirs from the next run on"
)
MAX_BYTES = 1_000_000  # larger files are not read (generated code, data)


def loaded(
    place: CheckPlace,
    changed: Callable[[], Iterable[str]],
    guard: TestGuard,
    meta: SpecMeta | None,
    *,
    sealed: bool = False,
) -> tuple[str, ...]:
    """One line for each file among `changed()` (of `place.tree`, since the run began) that
    shadows or patches the harness, or reads the tests that call it; `guard` knows which
    files are tests; `place`: where the checks run (its project's environments, ralph's copies
    of them) and how they start. Only for a spec whose checks run commands, or that has
    `sealed` tests: without them nothing is loaded to judge the DONE."""
    if not sealed and (meta is None or not meta.gates_done):
        return ()
    root = place.tree
    try:
        paths = list(changed())
    except StateError:  # the rotation's own snapshot says so, and the tree counts as changed
        return ()
    added = sorted(p for p in paths if not p.startswith("(") and (root / p).is_file())
    if not added:
        return ()

    def is_test(path: str) -> bool:
        return matches(path, guard.globs)

    tests = {*guard.store.seen(), *(p for p in added if is_test(p))}
    folders = import_folders(tests, lambda d: (root / d / "__init__.py").is_file())
    plugins = pytest_plugins(tuple(_sites(place.project, place.launcher)))
    lines = shadowing(added, folders, person_modules(root, set(added)), plugins)
    for path in added:
        if not path.endswith((".py", ".pyw")):
            continue
        # a test file may patch what its tests test, inside a test; not while it is imported
        # (a `testpatch.py` the package imports would hide a patch by its name)
        text = _read(root / path)
        for line, what in harness_patches(text, at_import=is_test(path)):
            lines.append(f"{path}:{line} patches the test harness: it {what}")
        if not path.endswith("__main__.py"):
            for line, what in import_exits(text):
                lines.append(f"{path}:{line} ends the test run: it {what}")
        if not is_test(path):  # the code under test: its tests are not its to read
            lines += [f"{path}:{line} {what}" for line, what in caller_reads(text, tests)]
    if lines:  # the first line says what a person can do, as the test guard's does
        lines[0] = f"what the test run loads was changed ({LOADED_HINT}): {lines[0]}"
    return tuple(lines)


def person_modules(root: Path, added: set[str]) -> dict[str, str]:
    """The project's own top-level modules at the root and in `src/` -> their folder, leaving
    out what the agent added."""
    out: dict[str, str] = {}
    for folder in ("", "src"):
        try:
            entries = list(os.scandir(root / folder))
        except OSError:
            continue
        for entry in sorted(entries, key=lambda e: e.name):
            rel = f"{folder}/{entry.name}" if folder else entry.name
            if entry.is_dir() and (Path(entry.path) / "__init__.py").is_file():
                name: str | None = entry.name if entry.name.isidentifier() else None
                rel += "/__init__.py"
            else:
                name = module_of(entry.name) if entry.is_file() else None
            if name is not None and rel not in added:
                out.setdefault(name, folder)
    return out


def _sites(project: Path, launcher: Launcher) -> Iterator[Path]:
    """The site-packages of every environment a check may run in: the project's own and
    the interpreters on PATH (process/treecode.py; and as they say themselves, for an
    interpreter behind a shim such as pyenv's), and ralph's copies and builds of the
    project's (store/environments/envcopy.py, store/environments/envbuild.py: the ones the rooms
    use)."""
    yield from site_dirs(os.environ, project)
    yield from _said(project, launcher)
    try:
        for prefix in sorted(envs_dir(project).glob("*/*")):
            yield from site_dirs({}, prefix)
    except OSError:
        return


@lru_cache(maxsize=8)
def _said(project: Path, launcher: Launcher) -> tuple[Path, ...]:
    """The site-packages the `python3` and `python` on PATH name, asked as the checks'
    commands start, once a process. One that lives in the project is never run: the agent
    could have made it a script of its own."""
    out: list[Path] = []
    inside = project.resolve()
    for name in ("python3", "python"):
        found = shutil.which(name)
        if found is None or Path(found).resolve().is_relative_to(inside):
            continue
        argv, env = (found, *SITES), dict(os.environ)
        ask = ProcessRequest(argv, project, env, timeout=60, confined=launcher.confined)
        try:
            said = launcher.execute(ask, lambda stream, chunk: None, None)
        except StartError:
            continue
        lines = said.stdout_tail.decode(errors="replace").splitlines() if said.ok else []
        out += [Path(line) for line in lines if line.strip()]
    return tuple(out)


@lru_cache(maxsize=8)
def pytest_plugins(sites: tuple[Path, ...]) -> frozenset[str]:
    """The modules the distributions installed in `sites` declare to pytest. Read once a
    process per set of folders: a plugin installed mid-run into the project's environment
    reaches no check (the rooms use ralph's copies, taken at the start)."""
    found: set[str] = set()
    for site in dict.fromkeys(sites):
        try:
            listed = sorted(site.glob("*.dist-info/entry_points.txt"))
            listed += sorted(site.glob("*.egg-info/entry_points.txt"))
        except OSError:
            continue
        for path in listed:
            found |= plugin_modules(_read(path))
    return frozenset(found)


def _read(path: Path) -> str:
    try:  # the one reader: no link, no pipe, and a file over MAX_BYTES is not read at all
        return reader.read_text(path, limit=MAX_BYTES, root=path.parent)
    except (OSError, RalphError):
        return ""
