"""An environment for what the tree declares, when it declares other dependencies than at the
start of the run: built by uv, confined like the agent, and kept by everything that went in.

The checks run with the environments copied when the run began (store/environments/envcopy.py).
When what
the tree declares (store/environments/declared.py: `requirements*.txt` and their includes,
`pyproject.toml`'s
`[project]` and `[dependency-groups]`, `setup.cfg`, the files its sources name) differs from the
run's start, an honest agent added a dependency the spec needs: ralph makes
`<store>/envs/<digest>/.venv` with uv, on the start's interpreter (the start's site-packages stay
importable after the new one's, through a `.pth` ralph writes).

uv never reads the tree. ralph writes what it installs into the build's own folder (the
requirements by name; the files of the sources a person accepted, copied through the one
reader), and runs uv there: in the run's sandbox, writing only that folder and the person's uv
cache, with a time limit, with no settings from the tree or the folders above it (`--no-config`,
or `--config-file` with the person's own uv settings as the run began: their index, find-links
and cache), wheels only (`--no-build`: building a source runs its code). A source of packages
that changed during a run (a wheel, a find-links line, a `uv.toml` in the tree) waits for a
person (store/environments/pkgsources.py). Built once per digest.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import RalphError
from ralph.process.launcher import PLAIN, Launcher
from ralph.process.treecode import NODE_MODULES, PROJECT_VENVS, _sites
from ralph.rules.environment.installerfault import unreachable
from ralph.store.disk.reader import read_text
from ralph.store.environments import pkgsources
from ralph.store.environments.buildinputs import build_inputs
from ralph.store.environments.declared import MAX_DECLARING, Declared, read_declared
from ralph.store.environments.envbins import venv_shadowing
from ralph.store.environments.envcopy import START, START_DIGEST, START_NODE, envs_dir, start_envs
from ralph.store.environments.installer import INPUT, Installer, uv_program
from ralph.store.environments.nodebuild import build_node
from ralph.store.environments.nodedeclared import read_node
from ralph.store.environments.npmsettings import registry
from ralph.store.environments.uvsettings import kept_person_uv, uv_settings
from ralph.store.rooms.roomsync import wipe

BUILT = "built"


@dataclass(frozen=True)
class Environments:
    """The folder holding the environments the checks of a tree use, why none could be built
    (None: it could), the name of the virtualenv ralph built there (None: the start's
    copies serve), and what of the declaration ralph could not read (said, not refused)."""

    folder: Path
    why: str | None = None
    built: str | None = None
    unread: tuple[str, ...] = ()
    halt: bool = False  # the package index could not be reached: not the tree's failure


def environments(
    project: Path, tree: Path, env: Mapping[str, str], launcher: Launcher = PLAIN
) -> Environments:
    start = start_envs(project)
    declared = read_declared(tree)
    node = read_node(tree, registry(project))
    unread = (*declared.declaration.unread, *node.declaration.unread)
    python = _changed(start / START_DIGEST, declared.digest)
    nodejs = _changed(start / START_NODE, node.digest)
    if not python and not nodejs:
        return Environments(start, unread=unread)
    held = pkgsources.why_held(project, [*declared.blocks(), *node.blocks()])
    if held is not None:
        return Environments(start, held, unread=unread)
    python_key = _key(declared, kept_person_uv(project), env) if python else None
    target = build_folder(project, python_key, node.digest if nodejs else None)
    if not (target / BUILT).is_file():
        wipe(target)
        (target / INPUT).mkdir(mode=0o700, parents=True)
        why = _build(project, start, tree, declared, target, env, launcher) if python else None
        if why is None and nodejs:
            why = build_node(project, tree, node, target, env, launcher)
        # what uv read (the settings it was given, the copies) goes: every check reads envs/
        wipe(target / INPUT)
        if why is not None:
            return Environments(target, why, unread=unread, halt=unreachable(why))
        for name in (*PROJECT_VENVS, NODE_MODULES):  # what was not built: the start's
            if (start / name).is_dir() and not (target / name).exists():
                (target / name).symlink_to(start / name, target_is_directory=True)
        (target / BUILT).write_text("")
    found = (n for n in PROJECT_VENVS if (target / n / "pyvenv.cfg").is_file())
    return Environments(target, None, next(found, None) if python else None, unread)


def build_folder(project: Path, python: str | None, node: str | None) -> Path:
    """Where the environments are built for these keys (None: that language's is the
    start's, linked)."""
    key = f"{python or START}:{node or START}"
    return envs_dir(project) / hashlib.sha256(key.encode()).hexdigest()[:16]


def _changed(recorded: Path, digest: str) -> bool:
    """Does the tree declare other than the run's start recorded (none recorded: no)?"""
    try:
        return recorded.read_text() != digest
    except OSError:
        return False


def _key(declared: Declared, person: str | None, env: Mapping[str, str]) -> str:
    """What the Python build is keyed by: everything that went into it (the declaration, with
    the hash of every file its sources name, and the person's uv settings and variables)."""
    settings = sorted((k, v) for k, v in env.items() if k.startswith("UV_"))
    data = json.dumps([declared.digest, person, settings])
    return hashlib.sha256(data.encode()).hexdigest()[:16]


def _build(
    project: Path,
    start: Path,
    tree: Path,
    declared: Declared,
    target: Path,
    env: Mapping[str, str],
    launcher: Launcher,
) -> str | None:
    uv = uv_program()
    if uv is None:
        return "uv is not installed beside ralph: reinstall ralph as its README says (it needs uv)"
    settings = uv_settings(tree, declared, target, env, kept_person_uv(project))
    if isinstance(settings, str):
        return settings
    config, cache = settings
    name = next((n for n in PROJECT_VENVS if (start / n / "pyvenv.cfg").is_file()), None)
    if name is not None:
        python = _base_python(start / name)
        bases = [str(p) for p in _sites(start / name)]
    else:
        python = shutil.which("python3", path=env.get("PATH")) or "python3"
        bases = python_sites(python, target, env)
    venv = target / (name or ".venv")
    run_env = {k: v for k, v in env.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    run_env = {k: v for k, v in run_env.items() if k not in ("UV_CONFIG_FILE", "UV_CACHE_DIR")}
    common = [*config, "--cache-dir", str(cache), "--no-python-downloads"]
    uv_run = Installer(uv, target, run_env, cache, launcher)
    made = uv_run(["venv", "-q", *common, "--python", python, str(venv)])
    if made is not None:
        return made
    site = next(iter(_sites(venv)), None)
    if site is None:
        return "uv made no site-packages"
    (site / "_ralph_start.pth").write_text("".join(f"{b}\n" for b in bases))
    inputs = build_inputs(tree, declared, target / INPUT)
    if isinstance(inputs, str):
        return inputs
    if inputs:
        before = _hooks(site)
        args = ["pip", "install", "-q", "--no-build", *common, "--python", str(venv / "bin/python")]
        failed = uv_run([*args, *inputs])
        if failed is not None:
            return failed
        added = sorted(_hooks(site) - before)
        if added:  # what the tree declares must not change how every test run starts
            return f"a declared package runs code at every Python start: {added[0]}"
        return venv_shadowing(venv, start / name if name is not None else None, env)
    return None


def _base_python(venv: Path) -> str:
    """The interpreter a virtualenv was made from (its `pyvenv.cfg`), outside ralph's store:
    uv in the sandbox never sees the store's copy."""
    fields: dict[str, str] = {}
    try:
        text = read_text(venv / "pyvenv.cfg", limit=MAX_DECLARING, root=venv)
    except (OSError, RalphError):
        text = ""
    for line in text.splitlines():
        key, sep, value = line.partition("=")
        if sep:
            fields[key.strip()] = value.strip()
    named = [fields.get("executable", "")]
    version = fields.get("version_info") or fields.get("version") or ""
    home = fields.get("home", "")
    if home:
        short = ".".join(version.split(".")[:2])
        named += [f"{home}/python{short}" if short else "", f"{home}/python3", f"{home}/python"]
    found = next((p for p in named if p and Path(p).is_file()), None)
    return found or os.path.realpath(venv / "bin" / "python")


def _hooks(site: Path) -> set[str]:
    """What in `site` Python runs at every start: a `.pth` with an `import` line (setuptools'
    own `distutils-precedence.pth` aside, when setuptools' RECORD lists it), a
    `sitecustomize` or `usercustomize`."""
    out: set[str] = set()
    for entry in site.iterdir():
        name = entry.name
        if name.split(".")[0] in ("sitecustomize", "usercustomize"):
            out.add(name)
        elif name.endswith(".pth") and name != "_ralph_start.pth":
            text = read_text(entry, limit=MAX_DECLARING, root=site, truncate=True)
            runs = any(line.startswith(("import ", "import\t")) for line in text.splitlines())
            setuptools = name == "distutils-precedence.pth" and _setuptools_lists(site, name)
            if runs and not setuptools:
                out.add(name)
    return out


def _setuptools_lists(site: Path, name: str) -> bool:
    for record in site.glob("setuptools-*.dist-info/RECORD"):
        text = read_text(record, limit=MAX_DECLARING, root=site, truncate=True)
        if any(line.split(",")[0] == name for line in text.splitlines()):
            return True
    return False


# An interpreter's question for its site-packages, in isolated mode: no folder of its working
# directory, no variable and no user site reaches it (checks/loaded.py asks it too).
SITES = ("-I", "-c", "import site; print(chr(10).join(site.getsitepackages()))")


def python_sites(python: str, cwd: Path, env: Mapping[str, str] | None = None) -> list[str]:
    """The site-packages of the interpreter `python` (a virtualenv's own when it is one)."""
    from ralph.process.capture import run_captured

    try:
        done = run_captured([python, *SITES], cwd, env)
    except OSError:
        return []
    return [line for line in done.stdout.decode(errors="replace").splitlines() if line.strip()]
