"""An environment for what the tree declares, when it declares other dependencies than at the
start of the run: built by uv, as a CI job builds one, and kept by the declaring files' hash.

The checks run with the environments copied when the run began (store/envcopy.py). When the
files that declare the dependencies (`pyproject.toml`, `requirements*.txt`, `setup.cfg`,
`setup.py`, `uv.lock` at the tree's root) differ from the run's start, an honest agent added a
dependency the spec needs: ralph makes `<store>/envs/<hash>/.venv` with uv, on the start's
environment (its site-packages stay importable after the new one's, through a `.pth` ralph
writes), and installs what the tree declares into it (uv's cache makes it quick, and works
offline for what it holds; `UV_INDEX_URL`, `UV_FIND_LINKS` and uv's own settings say where
packages come from). Built once per hash: a later DONE on the same declarations reuses it.
When uv cannot build it, the DONE is refused with the line uv ended on.
"""

from __future__ import annotations

import shutil
from collections.abc import Mapping
from pathlib import Path

from ralph.process.capture import run_captured
from ralph.process.treecode import PROJECT_VENVS, _sites
from ralph.store.envcopy import MAX_DECLARING, START_DIGEST, declared, envs_dir, start_envs
from ralph.store.reader import read_text
from ralph.store.roomsync import wipe

BUILT = "built"


def environments(
    project: Path, tree: Path, env: Mapping[str, str]
) -> tuple[Path, str | None, str | None]:
    """(the folder holding the environments the checks of `tree` use, why none could be
    built or None, the name of the virtualenv ralph built there for the tree's declarations
    or None when it uses the start's copies)."""
    start = start_envs(project)
    try:
        was = (start / START_DIGEST).read_text()
    except OSError:
        was = None
    now = declared(tree)
    if was is None or now == was:
        return start, None, None
    target = envs_dir(project) / now[:16]
    if not (target / BUILT).is_file():
        why = _build(start, tree, target, env)
        if why is not None:
            return target, why, None
    name = next((n for n in PROJECT_VENVS if (target / n / "pyvenv.cfg").is_file()), None)
    return target, None, name


def _build(start: Path, tree: Path, target: Path, env: Mapping[str, str]) -> str | None:
    uv = _uv()
    if uv is None:
        return "uv is not installed beside ralph: reinstall ralph as its README says (it needs uv)"
    wipe(target)
    target.mkdir(mode=0o700, parents=True)
    name = next((n for n in PROJECT_VENVS if (start / n / "pyvenv.cfg").is_file()), None)
    if name is not None:
        python = str(start / name / "bin" / "python")
        bases = [str(p) for p in _sites(start / name)]
    else:
        python = shutil.which("python3", path=env.get("PATH")) or "python3"
        bases = python_sites(python, tree, env)
    venv = target / (name or ".venv")
    run_env = {k: v for k, v in env.items() if k not in ("VIRTUAL_ENV", "PYTHONPATH")}
    made = _run([uv, "venv", "-q", "--python", python, str(venv)], tree, run_env)
    if made is not None:
        return made
    site = next(iter(_sites(venv)), None)
    if site is None:
        return "uv made no site-packages"
    (site / "_ralph_start.pth").write_text("".join(f"{b}\n" for b in bases))
    # wheels only: building a source distribution runs its code, outside any sandbox
    args = [uv, "pip", "install", "-q", "--no-build", "--python", str(venv / "bin" / "python")]
    for req in sorted(tree.glob("requirements*.txt")):
        args += ["-r", str(req)]
    pyproject = tree / "pyproject.toml"
    if "[project]" in read_text(pyproject, limit=MAX_DECLARING, root=tree, truncate=True):
        args += ["-r", str(pyproject), "--all-extras"]
    if "-r" in args:
        before = _hooks(site)
        failed = _run(args, tree, run_env)
        if failed is not None:
            return failed
        added = sorted(_hooks(site) - before)
        if added:  # what the tree declares must not change how every test run starts
            return f"a declared package runs code at every Python start: {added[0]}"
    if (start / "node_modules").is_dir():
        (target / "node_modules").symlink_to(start / "node_modules", target_is_directory=True)
    (target / BUILT).write_text("")
    return None


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


def _run(argv: list[str], cwd: Path, env: Mapping[str, str]) -> str | None:
    """None when `argv` succeeded, else the line it ended on."""
    try:
        done = run_captured(argv, cwd, env)
    except OSError as exc:
        return str(exc)
    if done.returncode == 0:
        return None
    text = (done.stderr or done.stdout).decode("utf-8", errors="replace")
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    return lines[-1] if lines else f"uv exited {done.returncode}"


# An interpreter's question for its site-packages, in isolated mode: no folder of its working
# directory, no variable and no user site reaches it (checks/loaded.py asks it too).
SITES = ("-I", "-c", "import site; print(chr(10).join(site.getsitepackages()))")


def python_sites(python: str, cwd: Path, env: Mapping[str, str] | None = None) -> list[str]:
    """The site-packages of the interpreter `python` (a virtualenv's own when it is one)."""
    try:
        done = run_captured([python, *SITES], cwd, env)
    except OSError:
        return []
    return [line for line in done.stdout.decode(errors="replace").splitlines() if line.strip()]


def _uv() -> str | None:
    try:
        from uv import find_uv_bin
    except ImportError:
        return shutil.which("uv")
    try:
        return str(find_uv_bin())
    except FileNotFoundError:
        return shutil.which("uv")
