"""A tree's checks test that tree's code, whatever the project's install mode.

The interface: `tree_code(tree, project, env)` gives the environment to run checks (or an
agent) in `tree`, a copy of the project whose root is `project`: a lane's worktree today, the
clean room's fresh copy next. Call it each time before running them (an agent may
`pip install -e .` between rotations); it reads a few small files, and links the project's
virtualenv into the tree once.

Why: an editable install (`pip install -e .` of a `src/` layout) leaves a `.pth` file or an
import finder in the virtualenv that points at the project's own checkout, so `import pkg` in
a copy of the project loads the original's code and a correct fix in the copy fails its tests.
And the virtualenv itself (`.venv/`, git-ignored) is not in a worktree at all.

How:
1. The project's virtualenv folder is linked at the same place in the tree when git ignores
   that name there (`link_environments`): `.venv/bin/pytest` works in the tree.
2. Every place the environments a check may use (the active virtualenv, the `python` on PATH,
   the project's `.venv`/`venv`, the user site) map into the project is moved to the same
   relative place in the tree and put FIRST on `PYTHONPATH`; entries already on `PYTHONPATH`
   that point into the project are moved too. `PYTHONPATH` comes before site-packages and
   before the finders editable installs append to `sys.meta_path`; it works for `pytest`,
   `python -m pytest` and any runner that starts Python, and leaves pytest's rootdir and
   conftest handling (relative to the working folder: the tree) alone. A generated `.pth`
   would need a site folder of its own, and a `sitecustomize` would replace the person's.

Not covered, said in a refused DONE through `TreeCode.outside`: a module mapped under another
name than its folder's; a mapped folder the tree does not have; a top-level module only the
project's folder has. Not covered at all: an interpreter started with `-I` or `-E` (it ignores
PYTHONPATH).

JavaScript: the project's `node_modules` becomes a folder of links in the tree (see
`_node_modules`), so workspace packages resolve to the tree's copies; `NODE_PATH` and
bundler or TypeScript path aliases that name absolute paths are not moved.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath

from ralph.process.capture import run_captured
from ralph.rules.environment.treecode import Entry, mapped_modules, pth_paths, remap, within

PROJECT_VENVS = (".venv", "venv", "env")  # where a project's own virtualenv usually lives
NODE_MODULES = "node_modules"
MAX_PTH_BYTES = 1 << 16  # a .pth or finder larger than this is not an editable install's


@dataclass(frozen=True)
class TreeCode:
    env: dict[str, str]  # the environment to run the checks with
    first: tuple[str, ...] = ()  # the tree's folders put first on PYTHONPATH
    outside: tuple[str, ...] = ()  # code the checks may still import from outside the tree

    def refusal(self) -> str | None:
        """The one line a refused DONE carries when the checks may test code elsewhere."""
        if not self.outside:
            return None
        more = f" (and {len(self.outside) - 1} more)" if len(self.outside) > 1 else ""
        return f"the checks may import code from outside this tree: {self.outside[0]}{more}"


def tree_code(
    tree: Path, project: Path, env: Mapping[str, str] | None = None, envs: Path | None = None
) -> TreeCode:
    """`envs`: where the environments are that the checks use (ralph's copies of the
    project's, store/environments/envcopy.py); the project's own when None."""
    base = dict(os.environ if env is None else env)
    tree_p, project_p = PurePath(tree.resolve()), PurePath(project.resolve())
    if tree_p == project_p:
        return TreeCode(base)
    link_environments(tree, envs or project)
    paths = [p for p in base.get("PYTHONPATH", "").split(os.pathsep) if p]
    found = _entries(base, project_p, envs)
    plan = remap(found, project_p, tree_p)
    first = [moved for moved, _ in plan.first if Path(moved).is_dir()]
    outside = [*plan.outside, *_missing(found, tree_p, project_p)]
    for moved_, orig in plan.first:
        if moved_ in first:
            outside += [f"{Path(orig) / n} (not in this tree)" for n in _only_in(orig, moved_)]
        else:
            outside.append(f"{orig} (the environment puts it on sys.path; this tree has none)")
    moved = [_move(p, project_p, tree_p) for p in paths]
    full = [*first, *(p for p in moved if p not in first)]
    if full != paths:
        base["PYTHONPATH"] = os.pathsep.join(full)
    return TreeCode(base, tuple(first), tuple(outside))


def _missing(found: list[Entry], tree: PurePath, project: PurePath) -> list[str]:
    """The folders the environment puts on sys.path inside the tree (a .pth line relative to
    a room's site-packages: store/environments/envcopy.py) that the tree lacks: the project has
    them."""
    out: list[str] = []
    for entry in found:
        path = PurePath(os.path.normpath(entry.path))
        if entry.module is None and within(path, tree) and not Path(path).exists():
            rel = path.relative_to(tree)
            out.append(f"{project / rel} (the environment puts it on sys.path; this tree has none)")
    return out


def _only_in(orig: str, moved: str) -> list[str]:
    """The importable names (packages, modules) of the project's folder that the tree's copy
    lacks: an import of one still loads the project's (its folder stays on sys.path)."""
    return sorted(_importable(Path(orig)) - _importable(Path(moved)))[:3]


def _importable(folder: Path) -> set[str]:
    try:
        return {
            p.name
            for p in folder.iterdir()
            if p.suffix == ".py" or (p.is_dir() and (p / "__init__.py").is_file())
        }
    except OSError:
        return set()


def link_environments(tree: Path, project: Path, *, ignored_only: bool = True) -> list[str]:
    """The project's own virtualenv (`.venv`, `venv`, `env`: git-ignored, so a worktree has
    none) at the same place in the tree, so a check such as `.venv/bin/pytest` runs there too,
    with the environment the person set up: a real folder whose entries (`bin`, `lib`,
    `pyvenv.cfg`...) link to the project's (git matches `.venv/` only against a folder, never
    a link). Only where git ignores that folder in the tree: nothing git would see is ever
    made (a lane's work is committed with `add -A`); `ignored_only=False` for a tree that is
    no repository (the clean room, store/rooms/room.py). The names linked."""
    linked: list[str] = []
    for name in PROJECT_VENVS:
        source, target = project / name, tree / name
        if not (source / "pyvenv.cfg").is_file() or target.exists() or target.is_symlink():
            continue
        try:
            target.mkdir()  # empty: git status does not see it while we ask
            if ignored_only and not _ignored(tree, name):
                target.rmdir()
                continue
            for entry in source.iterdir():
                (target / entry.name).symlink_to(entry, entry.is_dir())
        except OSError:
            continue
        linked.append(name)
    if _node_modules(tree, project, ignored_only):
        linked.append(NODE_MODULES)
    return linked


def _node_modules(tree: Path, project: Path, ignored_only: bool) -> bool:
    """JavaScript: the project's `node_modules` (git-ignored, so a worktree has none, and node
    would walk up to the project's, whose workspace links point at the project's packages) as
    a folder of links in the tree; a link into the project outside `node_modules` (an npm,
    yarn or pnpm workspace package) points at the same place in the tree instead."""
    source, target = project / NODE_MODULES, tree / NODE_MODULES
    if not source.is_dir() or target.exists() or target.is_symlink():
        return False
    try:
        target.mkdir()
        if ignored_only and not _ignored(tree, NODE_MODULES):
            target.rmdir()
            return False
        _mirror(source, target, PurePath(project.resolve()), PurePath(tree.resolve()))
    except OSError:
        return False
    return True


def _mirror(source: Path, target: Path, project: PurePath, tree: PurePath) -> None:
    modules = project / NODE_MODULES
    for entry in source.iterdir():
        dest = target / entry.name
        if entry.is_symlink():
            real = PurePath(entry.resolve())
            if within(real, project) and not within(real, modules) and not within(real, tree):
                dest.symlink_to(tree / real.relative_to(project), target_is_directory=True)
                continue
        elif entry.name.startswith("@") and entry.is_dir():  # a scope: @org/pkg links inside
            dest.mkdir()
            _mirror(entry, dest, project, tree)
            continue
        dest.symlink_to(entry, entry.is_dir())


def _ignored(tree: Path, name: str) -> bool:
    git = shutil.which("git")
    if git is None:
        return False
    try:
        # The tree's config is the agent's to write: no fsmonitor (git reading the index
        # would run it, as ralph), no hook.
        argv = (git, "-c", "core.fsmonitor=false", "-c", f"core.hooksPath={os.devnull}")
        return run_captured((*argv, "check-ignore", "-q", name), tree).returncode == 0
    except OSError:
        return False


def _move(path: str, project: PurePath, tree: PurePath) -> str:
    p = PurePath(Path(path).resolve())
    if within(p, project) and not within(p, tree):
        return str(tree / p.relative_to(project))
    return path


def _entries(env: Mapping[str, str], project: PurePath, envs: Path | None) -> list[Entry]:
    out: list[Entry] = []
    for site in dict.fromkeys(site_dirs(env, envs or Path(project))):
        for pth in sorted(site.glob("*.pth")):
            text = _read(pth)
            out += [Entry(p, None, pth.name) for p in pth_paths(text, str(site))]
            # a .pth that imports an editable finder: the finder's module is beside it
            for line in text.splitlines():
                if line.startswith("import "):
                    name = line[len("import ") :].split(";")[0].split(",")[0].strip()
                    out += _finder(site / f"{name}.py")
    return out


def _finder(path: Path) -> list[Entry]:
    if not path.is_file():
        return []
    return [Entry(p, m, path.name) for m, p in mapped_modules(_read(path)).items()]


def _read(path: Path) -> str:
    try:
        with path.open("rb") as f:
            return f.read(MAX_PTH_BYTES).decode("utf-8", errors="replace")
    except OSError:
        return ""


def site_dirs(env: Mapping[str, str], project: Path) -> Iterator[Path]:
    """The site-packages folders of every environment a check command may run Python in
    (`project`: the folder that holds the project's virtualenvs)."""
    prefixes: list[Path] = []
    if env.get("VIRTUAL_ENV"):
        prefixes.append(Path(env["VIRTUAL_ENV"]))
    for exe in ("python3", "python"):
        found = shutil.which(exe, path=env.get("PATH", ""))
        if found:
            prefixes.append(Path(found).parent.parent)  # not resolved: a venv's python links out
    prefixes += [project / name for name in PROJECT_VENVS]
    prefixes.append(Path(sys.prefix))
    if not env.get("PYTHONNOUSERSITE"):
        prefixes.append(Path.home() / ".local")  # the user site: `pip install --user -e .`
    for prefix in prefixes:
        yield from _sites(prefix)


def _sites(prefix: Path) -> Iterator[Path]:
    try:
        if not prefix.is_dir():
            return
        yield from (p for p in prefix.glob("lib/python3*/site-packages") if p.is_dir())
        yield from (p for p in prefix.glob("lib/python3*/dist-packages") if p.is_dir())
        if (prefix / "Lib" / "site-packages").is_dir():  # Windows
            yield prefix / "Lib" / "site-packages"
    except OSError:
        return
