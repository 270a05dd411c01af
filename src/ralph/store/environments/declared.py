"""What a tree declares, read through the one reader (rules/environment/declarations.py parses).

Every file is reached from the tree's root one name at a time, never through a link that
leaves it, never a pipe or a device, at most MAX_DECLARING bytes (store/disk/reader.py): an include
that is a named pipe declares nothing and is said. The files a source names (a wheel, a folder
of wheels) are hashed, so a wheel swapped or deleted after a build is a different declaration.
"""

from __future__ import annotations

import hashlib
import json
import posixpath
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.errors import RalphError
from ralph.rules.environment.declarations import (
    SETTINGS_FILES,
    Declaration,
    Source,
    read_pyproject,
    read_setup_cfg,
)
from ralph.rules.environment.requirements import MAX_INCLUDES, read_requirements
from ralph.store.disk.reader import read_bytes

MAX_DECLARING = 1 << 22  # a declaring file
UNREAD = "not understood, so not in the checks' environment"  # said of each at the start
MAX_ARTIFACT = 1 << 28  # a wheel or archive a source names
MAX_ARTIFACTS = 256  # files of a folder of wheels a source names


@dataclass(frozen=True)
class Declared:
    """A tree's declaration and the hashes of the files its sources name."""

    declaration: Declaration
    artifacts: tuple[tuple[str, str], ...]  # (tree-relative path, sha256 or why unreadable)
    setup_py: bool  # a setup.py, which ralph never runs
    read: tuple[str, ...] = ()  # the root files read besides requirements (pyproject.toml ...)

    @property
    def digest(self) -> str:
        """Everything that goes into an environment built for it (the key of that build)."""
        data = [self.declaration.canonical(), [list(a) for a in self.artifacts]]
        return hashlib.sha256(json.dumps(data).encode()).hexdigest()

    def blocks(self) -> list[tuple[Source, str]]:
        """Each source and its text as a person reviews it: its line, then the hash of every
        file it names."""
        return source_blocks(self.declaration.sources, self.artifacts)

    def sources_text(self) -> str:
        """The sources as a person reviews them (`ralph accept`). Empty: none."""
        return "".join(text for _, text in self.blocks())

    @property
    def files(self) -> list[str]:
        """Every file of the tree the declaration was read from (tree-relative)."""
        return [*self.declaration.includes, *self.read, *(p for p, _ in self.artifacts)]

    @property
    def python(self) -> bool:
        """Does the tree declare anything for Python at all?"""
        d = self.declaration
        return bool(d.requirements or d.constraints or d.sources or d.includes or self.setup_py)


def source_blocks(
    sources: list[Source], artifacts: tuple[tuple[str, str], ...]
) -> list[tuple[Source, str]]:
    """Each source and its text as a person reviews it: its line, then the hash of every file
    it names."""
    hashes = dict(artifacts)
    out: list[tuple[Source, str]] = []
    for source in sources:
        lines = [source.describe()]
        for path in source.paths:
            named = sorted(p for p in hashes if p == path or p.startswith(path + "/"))
            lines += [f"    {p} sha256:{hashes[p]}" for p in named] or [f"    {path} (none)"]
        out.append((source, "".join(f"{line}\n" for line in lines)))
    return out


def read_declared(tree: Path) -> Declared:
    """What `tree` declares at its root: `requirements*.txt` (and what they include),
    `pyproject.toml`, `setup.cfg`, package-manager settings files."""
    out = Declaration()
    try:
        names = sorted(p.name for p in tree.iterdir())
    except OSError:
        names = []
    for name in names:
        if name.startswith("requirements") and name.endswith(".txt"):
            _requirements(tree, name, out, constraint=False, depth=0)
    if "pyproject.toml" in names:
        text = _text(tree, "pyproject.toml", out)
        if text is not None:
            try:
                data = _toml(text)
            except ValueError as exc:
                out.unread.append(f"pyproject.toml: {exc}")
            else:
                read_pyproject(data, "pyproject.toml", out)
    if "setup.cfg" in names:
        text = _text(tree, "setup.cfg", out)
        if text is not None:
            read_setup_cfg(text, "setup.cfg", out)
    for name in SETTINGS_FILES:
        if (tree / name).exists() or (tree / name).is_symlink():
            out.sources.append(Source(name, "package-manager settings in the tree", (name,)))
    artifacts = artifact_hashes(tree, out.sources)
    read = tuple(n for n in ("pyproject.toml", "setup.cfg", *SETTINGS_FILES) if n in names)
    return Declared(out, artifacts, "setup.py" in names, read)


def unread(tree: Path) -> list[str]:
    """What of `tree`'s declaration ralph cannot read (each "file: why"); a `setup.py` that
    alone would declare the dependencies (ralph never runs it) among them."""
    declared = read_declared(tree)
    out = list(declared.declaration.unread)
    if declared.setup_py and not declared.declaration.requirements:
        out.append(
            "setup.py: its dependencies are computed by running it, which ralph never does: "
            "declare them in setup.cfg, pyproject.toml or requirements*.txt"
        )
    return out


def _requirements(tree: Path, name: str, out: Declaration, *, constraint: bool, depth: int) -> None:
    if name in out.includes:
        return  # read once: an include cycle ends here
    out.includes.append(name)
    text = _text(tree, name, out)
    if text is None:
        return
    for include in read_requirements(text, name, out, constraint=constraint):
        if depth >= MAX_INCLUDES:
            out.unread.append(f"{name}: includes nested deeper than {MAX_INCLUDES}")
            return
        _requirements(tree, include.path, out, constraint=include.constraint, depth=depth + 1)


def _text(tree: Path, name: str, out: Declaration) -> str | None:
    try:
        data = read_bytes(tree / name, limit=MAX_DECLARING, root=tree)
    except FileNotFoundError:
        out.unread.append(f"{name}: no such file")
        return None
    except (OSError, RalphError) as exc:
        out.unread.append(f"{name}: {_why(exc)}")
        return None
    return data.decode("utf-8", errors="replace")


def _toml(text: str) -> dict[str, Any]:
    if sys.version_info >= (3, 11):
        import tomllib
    else:  # no TOML reader in the standard library before 3.11
        import tomli as tomllib
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ValueError(f"not valid TOML ({exc})") from exc


def artifact_hashes(tree: Path, sources: list[Source]) -> tuple[tuple[str, str], ...]:
    """(path, sha256) of every file a source names: a file, or the files of a folder (not
    below it: find-links reads one level)."""
    out: dict[str, str] = {}
    for path in sorted({p for s in sources for p in s.paths}):
        here = tree / path
        if here.is_dir() and not here.is_symlink():
            try:
                entries = sorted(e.name for e in here.iterdir())[:MAX_ARTIFACTS]
            except OSError as exc:
                out[path] = _why(exc)
                continue
            for entry in entries:
                if (here / entry).is_file() or (here / entry).is_symlink():
                    out[posixpath.join(path, entry)] = _hash(tree, posixpath.join(path, entry))
        else:
            out[path] = _hash(tree, path)
    return tuple(sorted(out.items()))


def _hash(tree: Path, path: str) -> str:
    try:
        return hashlib.sha256(read_bytes(tree / path, limit=MAX_ARTIFACT, root=tree)).hexdigest()
    except (OSError, RalphError) as exc:
        return _why(exc)


def _why(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError):
        return "missing"
    text = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
    return f"unreadable: {text}"
