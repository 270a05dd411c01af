"""Which changes to the environment the checks run in an agent may make (pure: two scans in, one
line per refused change out; `ralph.store.envrecord` takes the scans).

An honest agent installs a dependency the spec needs: a new distribution, whole (its
`*.dist-info/RECORD` lists the new files), or an upgrade of one the test run does not load at
start, with their bytecode. Refused, because it changes what runs before or around the tests
rather than the code under test:
- a new or changed `.pth` file with an `import` line (Python runs it at every start), except
  the editable install of the project itself (setuptools' `__editable__` finder mapping into
  the project);
- a new or changed `sitecustomize`/`usercustomize` (also run at every start);
- a new `pytest11` entry point (a plugin pytest loads by itself);
- any change to the files of the test runner's own distributions (pytest, pluggy, ... and the
  person's pytest plugins present at start), or to the standard library's;
- a file changed in place, or added, that no new or reinstalled distribution's RECORD lists,
  and bytecode that is not what its source compiles to;
- in `node_modules`: a changed `.bin/` entry, or any change to the runner's own package.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ralph.rules.treecode import mapped_modules, within

Stat = tuple[int, int, int]  # size, mtime_ns, ctime_ns: cheap, and ctime cannot be set back

# the kinds of folder a scan covers (a virtualenv's own folder: its pyvenv.cfg and bin/)
SITE, STDLIB, NODE, VENV = "site", "stdlib", "node", "venv"
STARTUP_SUFFIX = "#startup"  # texts key: what a .pth file's folders hold that Python runs at start
VENV_COMMANDS = re.compile(r"^bin/(python[\d.]*|pytest|py\.test|pypy[\d.]*)$")
# The distributions a pytest run loads before any test: their files are the harness.
RUNNER_DISTS = frozenset(
    (
        "pytest",
        "pluggy",
        "iniconfig",
        "packaging",
        "pygments",
        "exceptiongroup",
        "tomli",
        "colorama",
        "py",
    )
)
NODE_RUNNERS = ("jest", "jest-cli", "@jest", "vitest", "@vitest", "mocha")
STARTUP_MODULES = frozenset(("sitecustomize", "usercustomize"))
# files no distribution accounts for: refused, said after what runs at start by itself
STRAYS = (
    "changed in place, its distribution's RECORD unchanged",
    "a file no installed distribution lists",
)
_EDITABLE = re.compile(r"^import (__editable___[\w.]+_finder); \1\.install\(\)$")


@dataclass(frozen=True)
class Folder:
    """One scanned folder: every file's stat key, and the texts the rules read."""

    kind: str  # SITE, STDLIB or NODE
    files: dict[str, Stat] = field(default_factory=dict)  # posix path in the folder -> stat
    # *.pth, the finders they import, entry_points.txt, the runner's RECORDs, .bin link targets
    texts: dict[str, str] = field(default_factory=dict)


def dist_name(folder: str) -> str:
    """`Foo_Bar-1.0.dist-info` -> `foo-bar` (the normalized project name)."""
    return re.sub(r"[-_.]+", "-", folder.removesuffix(".dist-info").split("-")[0]).lower()


def record_paths(text: str) -> set[str]:
    """The files a RECORD lists, as paths in the site folder (`../../bin/x` left out)."""
    out: set[str] = set()
    for line in text.splitlines():
        path = line.rsplit(",", 2)[0].strip().strip('"') if line.count(",") >= 2 else ""
        if path and not path.startswith(("../", "/")):
            out.add(str(PurePosixPath(path)))
    return out


def pytest_plugins(texts: Mapping[str, str]) -> dict[str, str]:
    """`name = module` of every `[pytest11]` entry point, by its dist-info folder."""
    out: dict[str, str] = {}
    for path, text in texts.items():
        if not path.endswith(".dist-info/entry_points.txt"):
            continue
        section = None
        for raw in text.splitlines():
            line = raw.strip()
            if line.startswith("["):
                section = line.strip("[]").strip()
            elif section == "pytest11" and "=" in line:
                name, _, value = line.partition("=")
                out[f"{name.strip()} = {value.strip()}"] = path.split("/")[0]
    return out


def runner_files(before: Folder) -> tuple[set[str], set[str]]:
    """The files the test runner's own distributions listed at start, and their top-level
    folders and modules (a new file there, bytecode included, is the harness's too)."""
    plugins = {dist_name(d) for d in pytest_plugins(before.texts).values()}
    files: set[str] = set()
    for path, text in before.texts.items():
        info, _, name = path.partition("/")
        if name == "RECORD" and dist_name(info) in RUNNER_DISTS | plugins:
            files |= record_paths(text) | {info}
    return files, {_top(p) for p in files if not p.split("/")[0].endswith(".dist-info")}


def _top(path: str) -> str:
    """The top-level module a file of site-packages belongs to (`pkg/x.py`, `mod.py`, and a
    top-level module's bytecode `__pycache__/mod.cpython-312.pyc`)."""
    parts = path.split("/")
    if len(parts) == 2 and parts[0] == "__pycache__":
        return parts[1].split(".")[0]
    return parts[0].split(".")[0] if len(parts) == 1 else parts[0]


def _imports(text: str) -> list[str]:
    return [ln.strip() for ln in text.splitlines() if ln.startswith(("import ", "import\t"))]


def own_editable(pth: str, after: Folder, project: str) -> bool:
    """A `.pth` whose only code is setuptools' editable finder, mapping into the project."""
    if not pth.startswith("__editable__"):
        return False
    for line in _imports(after.texts.get(pth, "")):
        found = _EDITABLE.match(line)
        if found is None:
            return False
        mapped = mapped_modules(after.texts.get(f"{found.group(1)}.py", ""))
        if not mapped or not all(_in_tree(p, project) for p in mapped.values()):
            return False
    return True


def _in_tree(path: str, project: str) -> bool:
    """In the project, outside the folders the snapshot never compares (`.git/`, `.ralph/`,
    its virtualenvs): code the checks import from there would be tested unseen."""
    p, top = PurePosixPath(path), PurePosixPath(project)
    if not within(p, top):
        return False
    parts = p.relative_to(top).parts
    return not any(part in (".git", ".ralph", ".venv", "venv", "env") for part in parts[:1])


def judge(
    place: str,
    before: Folder,
    after: Folder,
    *,
    project: str,
    record: Callable[[str], str | None],
    bytecode_ok: Callable[[str], bool],
) -> list[str]:
    """One line per refused change of the folder at `place` from `before` to `after`.
    `record(info)` reads a dist-info's RECORD now; `bytecode_ok(path)` says whether a
    `.pyc` is what its source compiles to."""
    new = sorted(after.files.keys() - before.files.keys())
    changed = sorted(
        p for p in after.files.keys() & before.files.keys() if after.files[p] != before.files[p]
    )
    removed = sorted(before.files.keys() - after.files.keys())
    if after.kind == STDLIB:
        return [f"the standard library changed: {place}/{p}" for p in (*new, *changed, *removed)]
    if after.kind == NODE:
        return _node(place, before, after, changed, removed, new)
    if after.kind == VENV:
        return [
            f"the virtualenv's interpreter or settings changed: {place}/{p}"
            for p in (*changed, *removed)
            if p == "pyvenv.cfg"
            or VENV_COMMANDS.match(p)
            or after.texts.get(p) != before.texts.get(p)
        ]
    return _site(place, before, after, new, changed, removed, project, record, bytecode_ok)


def _node(
    place: str,
    before: Folder,
    after: Folder,
    changed: list[str],
    removed: list[str],
    new: list[str],
) -> list[str]:
    out: list[str] = []
    for p in (*changed, *removed, *new):
        is_bin = p.startswith(".bin/")
        if is_bin and p in before.files and after.texts.get(p) != before.texts.get(p):
            out.append(f"a command of node_modules/.bin changed: {place}/{p}")
        elif is_bin and p in before.files and p not in after.files:
            out.append(f"a command of node_modules/.bin was removed: {place}/{p}")
        elif not is_bin and p.split("/")[0] in NODE_RUNNERS:
            out.append(f"the test runner's own package changed: {place}/{p}")
    return out


def _site(
    place: str,
    before: Folder,
    after: Folder,
    new: list[str],
    changed: list[str],
    removed: list[str],
    project: str,
    record: Callable[[str], str | None],
    bytecode_ok: Callable[[str], bool],
) -> list[str]:
    out: list[str] = []
    files, tops = runner_files(before)
    for p in (*new, *changed, *removed):
        if (p in files or _top(p) in tops) and not (p in after.files and _compiled(p, bytecode_ok)):
            out.append(f"a file of the test runner changed: {place}/{p}")
    for key in sorted(k for k in after.texts if k.endswith(STARTUP_SUFFIX)):
        old = set(before.texts.get(key, "").splitlines())
        for found in sorted(set(after.texts[key].splitlines()) - old):
            pth = key.removesuffix(STARTUP_SUFFIX)
            out.append(
                f"a module Python runs at every start, on a path {place}/{pth} adds: {found}"
            )
    for plugin in sorted(pytest_plugins(after.texts).keys() - pytest_plugins(before.texts).keys()):
        out.append(f"a new pytest plugin that pytest loads by itself: {plugin} ({place})")
    # the RECORDs of the distributions installed or reinstalled since: what they list is theirs
    infos = {p.split("/")[0] for p in (*new, *changed) if p.split("/")[0].endswith(".dist-info")}
    owned = set().union(*(record_paths(record(i) or "") for i in sorted(infos)))
    for p in (*new, *changed):
        if p in files or _top(p) in tops:
            continue  # said above
        why = _refused(p, p in before.files, after, project, owned, infos, bytecode_ok)
        if why is not None:
            out.append(f"{why}: {place}/{p}")
    return sorted(out, key=lambda line: line.startswith(STRAYS))  # what runs by itself first


def _refused(
    p: str,
    existed: bool,
    after: Folder,
    project: str,
    owned: set[str],
    infos: set[str],
    bytecode_ok: Callable[[str], bool],
) -> str | None:
    if "/" not in p and p.endswith(".pth"):
        if _imports(after.texts.get(p, "")) and not own_editable(p, after, project):
            return "a .pth file that runs code at every Python start"
        return None
    if _top(p) in STARTUP_MODULES:
        return "a module Python runs at every start"
    if p.split("/", maxsplit=1)[0] in infos or p in owned:
        return None  # part of a distribution installed whole
    if _is_bytecode(p):
        return None if bytecode_ok(p) else "bytecode that is not what its source compiles to"
    return (
        "changed in place, its distribution's RECORD unchanged"
        if existed
        else ("a file no installed distribution lists")
    )


def _is_bytecode(path: str) -> bool:
    return path.endswith(".pyc") and "/__pycache__/" in f"/{path}"


def _compiled(path: str, bytecode_ok: Callable[[str], bool]) -> bool:
    """Bytecode that is what its (unchanged) source compiles to: Python's own cache, written
    by any run of the tests where bytecode was not compiled at install."""
    return _is_bytecode(path) and bytecode_ok(path)


def summary(lines: Iterable[str]) -> str | None:
    """The one reason a DONE is refused for: the first line, and how many more."""
    found = list(lines)
    if not found:
        return None
    more = f" (and {len(found) - 1} more)" if len(found) > 1 else ""
    return f"the environment the checks run in was changed: {found[0]}{more}"
