"""An environment for what the tree declares, when it declares other dependencies than at the
start of the run: built by uv, confined like the agent, and kept by everything that went in.

The checks run with the environments copied when the run began (store/envcopy.py). When what
the tree declares (store/declared.py: `requirements*.txt` and their includes, `pyproject.toml`'s
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
person (store/pkgsources.py). Built once per digest.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from ralph.errors import RalphError
from ralph.process.launcher import PLAIN, Launcher
from ralph.process.request import Confinement, ProcessRequest
from ralph.process.spawn import StartError
from ralph.process.treecode import PROJECT_VENVS, _sites
from ralph.rules.declarations import Source
from ralph.store import pkgsources
from ralph.store.declared import MAX_ARTIFACT, MAX_DECLARING, Declared, read_declared
from ralph.store.envcopy import START_DIGEST, envs_dir, start_envs
from ralph.store.reader import read_bytes, read_text
from ralph.store.roomsync import wipe

BUILT = "built"
_CROSS = "\u00d7"  # the mark uv puts before an error
_DRAWING = _CROSS + "\u2570\u2500\u25b6\u2502\u251c "  # and the tree it draws below it
PERSON_UV = "person-uv.toml"  # the person's own uv settings as the run began
BUILD_TIMEOUT = 900.0  # seconds for each uv command: a hung index or a pipe ends here
INPUT = "input"  # the build's folder uv works in: all it reads of the tree is copied here
# what uv needs of ralph's environment inside a sandbox: its own settings, the proxy, the CAs
_PASSES = ("HTTP_PROXY", "HTTPS_PROXY", "NO_PROXY", "ALL_PROXY", "SSL_CERT_FILE", "SSL_CERT_DIR")


@dataclass(frozen=True)
class Environments:
    """The folder holding the environments the checks of a tree use, why none could be built
    (None: it could), the name of the virtualenv ralph built there (None: the start's
    copies serve), and what of the declaration ralph could not read (said, not refused)."""

    folder: Path
    why: str | None = None
    built: str | None = None
    unread: tuple[str, ...] = ()


def environments(
    project: Path, tree: Path, env: Mapping[str, str], launcher: Launcher = PLAIN
) -> Environments:
    start = start_envs(project)
    try:
        was = (start / START_DIGEST).read_text()
    except OSError:
        was = None
    declared = read_declared(tree)
    unread = tuple(declared.declaration.unread)
    if was is None or declared.digest == was:
        return Environments(start, unread=unread)
    held = _held(project, declared)
    if held is not None:
        return Environments(start, held, unread=unread)
    target = envs_dir(project) / declared.digest[:16]
    if not (target / BUILT).is_file():
        why = _build(project, start, tree, declared, target, env, launcher)
        if why is not None:
            return Environments(target, why, unread=unread)
    name = next((n for n in PROJECT_VENVS if (target / n / "pyvenv.cfg").is_file()), None)
    return Environments(target, None, name, unread)


def _held(project: Path, declared: Declared) -> str | None:
    """Why the tree's sources wait for a person (None: they are the accepted ones)."""
    accepted = pkgsources.accepted(project) or ""
    if declared.sources_text() == accepted:
        return None
    known = _blocks(accepted)
    new = [s for s, text in declared.blocks() if text not in known]
    first = new[0].describe() if new else "a source was removed"
    more = f" (and {len(new) - 1} more)" if len(new) > 1 else ""
    return (
        f"a package source no person accepted: {first}{more}; it changed during a run, so "
        "no DONE counts on it until a person accepts it (see it: ralph accept), or undo it"
    )


def _blocks(text: str) -> set[str]:
    """The sources of an accepted text, one block each (its line and its files' hashes)."""
    out: list[str] = []
    for line in text.splitlines(keepends=True):
        if line.startswith("    ") and out:
            out[-1] += line
        else:
            out.append(line)
    return set(out)


def record_person_uv(project: Path, env: Mapping[str, str]) -> None:
    """When the run starts: the person's own uv settings (their `uv.toml`), kept for the
    builds of this run; none when they have none."""
    kept = envs_dir(project) / PERSON_UV
    kept.unlink(missing_ok=True)
    for path in _person_configs(env):
        try:
            with path.open("rb") as f:
                data = f.read(MAX_DECLARING + 1)
        except OSError:
            continue
        if len(data) <= MAX_DECLARING:
            envs_dir(project).mkdir(mode=0o700, parents=True, exist_ok=True)
            kept.write_bytes(data)
        return


def _person_configs(env: Mapping[str, str]) -> list[Path]:
    if env.get("UV_CONFIG_FILE"):
        return [Path(env["UV_CONFIG_FILE"])]
    if env.get("UV_NO_CONFIG"):
        return []
    home = Path(env.get("HOME") or Path.home())
    config = Path(env.get("XDG_CONFIG_HOME") or home / ".config")
    return [config / "uv" / "uv.toml", Path("/etc/xdg/uv/uv.toml"), Path("/etc/uv/uv.toml")]


def _build(
    project: Path,
    start: Path,
    tree: Path,
    declared: Declared,
    target: Path,
    env: Mapping[str, str],
    launcher: Launcher,
) -> str | None:
    uv = _uv()
    if uv is None:
        return "uv is not installed beside ralph: reinstall ralph as its README says (it needs uv)"
    wipe(target)
    (target / INPUT).mkdir(mode=0o700, parents=True)
    settings = _settings(project, tree, declared, target, env)
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
    uv_run = _Runner(uv, target, run_env, cache, launcher)
    made = uv_run(["venv", "-q", *common, "--python", python, str(venv)])
    if made is not None:
        return made
    site = next(iter(_sites(venv)), None)
    if site is None:
        return "uv made no site-packages"
    (site / "_ralph_start.pth").write_text("".join(f"{b}\n" for b in bases))
    inputs = _inputs(tree, declared, target / INPUT)
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
    if (start / "node_modules").is_dir():
        (target / "node_modules").symlink_to(start / "node_modules", target_is_directory=True)
    (target / BUILT).write_text("")
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


def _settings(
    project: Path, tree: Path, declared: Declared, target: Path, env: Mapping[str, str]
) -> tuple[list[str], Path] | str:
    """uv's settings for a build: the tree's `uv.toml` when a person accepted it, else the
    person's own as the run began, else none (`--no-config`: nothing above the build is
    read); and the cache those settings name (the person's), or why not."""
    kept = envs_dir(project) / PERSON_UV
    tree_uv = any(s.file == "uv.toml" for s in declared.declaration.sources)
    config: list[str] = ["--no-config"]
    text: str | None = None
    if tree_uv:  # accepted, or the build would not be here (_held)
        try:
            text = read_text(tree / "uv.toml", limit=MAX_DECLARING, root=tree)
        except (OSError, RalphError) as exc:
            return f"uv.toml: {str(exc).splitlines()[0]}"
    elif kept.is_file():
        text = kept.read_text(errors="replace")
    if text is not None:
        copy = target / INPUT / "uv.toml"
        copy.write_text(text)
        config = ["--config-file", str(copy)]
    cache = _cache(text, env)
    try:
        cache.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        return f"cannot make uv's cache {cache}: {exc.strerror or exc}"
    return config, cache


def _cache(config: str | None, env: Mapping[str, str]) -> Path:
    """The cache the person's uv uses: UV_CACHE_DIR, their settings' `cache-dir`, uv's
    default."""
    if env.get("UV_CACHE_DIR"):
        return Path(env["UV_CACHE_DIR"]).expanduser()
    if config is not None:
        if sys.version_info >= (3, 11):
            import tomllib
        else:  # no TOML reader in the standard library before 3.11
            import tomli as tomllib
        try:
            named = tomllib.loads(config).get("cache-dir")
        except tomllib.TOMLDecodeError:
            named = None
        if isinstance(named, str):
            return Path(named).expanduser()
    base = env.get("XDG_CACHE_HOME") or str(Path(env.get("HOME") or Path.home()) / ".cache")
    return Path(base) / "uv"


def _inputs(tree: Path, declared: Declared, folder: Path) -> list[str] | str:
    """The files uv installs from, written in the build's folder (the arguments naming them;
    [] when there is nothing to install), or why not."""
    d = declared.declaration
    lines, constraints = [*d.options, *d.requirements], list(d.constraints)
    for source in d.sources:
        line = _source_line(tree, source, folder)
        if line is None:
            continue
        if line.startswith("!"):
            return line[1:]
        (constraints if source.option == "constraint" else lines).append(line)
    args: list[str] = []
    if constraints:
        (folder / "constraints.txt").write_text("".join(f"{c}\n" for c in constraints))
        args += ["-c", str(folder / "constraints.txt")]
    if not any(not line.startswith("-") for line in lines):
        return []
    (folder / "requirements.txt").write_text("".join(f"{line}\n" for line in lines))
    return [*args, "-r", str(folder / "requirements.txt")]


def _source_line(tree: Path, source: Source, folder: Path) -> str | None:
    """The requirements line of an accepted source, what it names copied into the build's
    folder; None when it adds none (settings files); "!why" when it cannot be used."""
    if source.option in ("index-url", "extra-index-url", "no-index", "trusted-host"):
        return source.line
    if source.file in ("uv.toml", "pip.conf", "pip.ini") and not source.option:
        return None  # settings: the tree's uv.toml is the build's --config-file
    if source.line.startswith("[tool.uv] "):
        return None  # said in the docs: [tool.uv] settings apply as a uv.toml only
    copies: list[Path] = []
    for path in source.paths:
        here = tree / path
        if here.is_dir() and not here.is_symlink() and source.option != "find-links":
            return f"!{source.describe()}: a folder to build; ralph installs wheels only"
        files = sorted(p for p in here.iterdir()) if here.is_dir() else [here]
        for file in files:
            rel = file.relative_to(tree).as_posix()
            try:
                data = read_bytes(file, limit=MAX_ARTIFACT, root=tree)
            except (OSError, RalphError) as exc:
                return f"!{source.describe()}: {rel}: {str(exc).splitlines()[0]}"
            copy = folder / "files" / rel
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(data)
            copies.append(copy)
    if source.option == "find-links":
        return f"--find-links {folder / 'files' / source.paths[0]}" if source.paths else source.line
    if not source.paths:
        return source.line.split(": ", 1)[-1]  # a URL: as the person accepted it
    name, at, _ = source.line.split(": ", 1)[-1].partition(" @ ")
    return f"{name} @ file://{copies[0]}" if at else str(copies[0])


class _Runner:
    """uv run in the build's folder, confined like the agent (the run's sandbox), writing
    the build's folder and the person's uv cache only, with a time limit."""

    def __init__(
        self, uv: str, target: Path, env: Mapping[str, str], cache: Path, launcher: Launcher
    ) -> None:
        self.uv, self.target, self.env, self.cache = uv, target, env, cache
        confined = launcher.confined
        if confined.box is not None and confined.box.profile == "docker":
            # the image need not hold uv: it runs on the host, still in its own folder,
            # reading only what ralph copied there (wheels only: no code of the tree runs)
            confined = Confinement(None, confined.allow)
        self.confined, self.execute = confined, launcher.execute
        self.passes = frozenset(k for k in env if k.startswith("UV_") or k in _PASSES)

    def __call__(self, args: list[str]) -> str | None:
        """None when uv succeeded, else the line it ended on."""
        (self.target.parent / "tmp").mkdir(mode=0o700, exist_ok=True)
        request = ProcessRequest(
            (self.uv, *args),
            self.target / INPUT,
            {**self.env, "TMPDIR": str(self.target.parent / "tmp")},
            timeout=BUILD_TIMEOUT,
            room=self.target,
            sealed=True,
            writes=(self.cache,),
            passes=self.passes,
            confined=self.confined,
        )
        try:
            done = self.execute(request, lambda _s, _b: None, None)
        except StartError as exc:
            return str(exc)
        if done.timed_out or done.idle_timed_out:
            return f"uv did not finish within {BUILD_TIMEOUT:.0f} s"
        if done.ok:
            return None
        text = (done.stderr_tail or done.stdout_tail).decode("utf-8", errors="replace")
        return said(text) or f"uv exited {done.exit_code}"


def said(text: str) -> str:
    """uv's error as one line: from its first `error:` or cross-marked line to the end, its
    tree drawing gone, at most 400 characters."""
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    start = next((i for i, line in enumerate(lines) if line.startswith(("error:", _CROSS))), 0)
    words = " ".join(line.lstrip(_DRAWING).strip() for line in lines[start:])
    return words if len(words) <= 400 else words[:399] + "…"


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


def _uv() -> str | None:
    try:
        from uv import find_uv_bin
    except ImportError:
        return shutil.which("uv")
    try:
        return str(find_uv_bin())
    except FileNotFoundError:
        return shutil.which("uv")
