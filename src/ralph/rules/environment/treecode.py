"""Where a Python environment puts a project's code on the import path, and the same places in a
copy of the project (pure: texts and paths in, paths out; `ralph.process.treecode` reads them).

Three kinds of entry point at a project's code:
- a path line of a `.pth` file in site-packages (pip's editable install of a `src/` layout,
  hatchling's dev mode, `pip install --user -e .`): a folder on `sys.path`;
- a setuptools editable finder (`__editable___<name>_finder.py`, its `MAPPING` dict) or an
  `editables` redirector (`F.map_module("name", "/path/name/__init__.py")`): a top-level module
  mapped to a folder or a file;
- a `PYTHONPATH` entry.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from pathlib import PurePath


@dataclass(frozen=True)
class Entry:
    """One place an environment takes code from: a sys.path folder (`module` None), or the
    file or package folder a top-level `module` is mapped to."""

    path: str
    module: str | None = None
    source: str = ""  # the file that said so (a .pth, a finder), for messages


def pth_paths(text: str, site_dir: str) -> list[str]:
    """The folders a `.pth` file adds to sys.path (its `import` lines run code: see
    `mapped_modules` for the ones that install an editable finder)."""
    out: list[str] = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", "import ", "import\t")):
            continue
        path = PurePath(line)
        out.append(str(path if path.is_absolute() else PurePath(site_dir) / path))
    return out


def mapped_modules(text: str) -> dict[str, str]:
    """The top-level modules an editable finder maps, by name: setuptools' `MAPPING = {...}`
    and the `editables` redirector's `map_module(name, path)` calls. Nothing for other code."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    out: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == "MAPPING" for t in targets):
                out.update(_str_dict(node.value))
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr == "map_module"
            and len(node.args) == 2
        ):
            name, path = (_const(a) for a in node.args)
            if name is not None and path is not None:
                out[name] = path
    return out


def _const(node: ast.expr) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _str_dict(node: ast.expr) -> dict[str, str]:
    if not isinstance(node, ast.Dict):
        return {}
    out: dict[str, str] = {}
    for k, v in zip(node.keys, node.values, strict=True):
        key, value = (_const(k) if k is not None else None), _const(v)
        if key is not None and value is not None:
            out[key] = value
    return out


def within(path: PurePath, folder: PurePath) -> bool:
    return path == folder or folder in path.parents


@dataclass(frozen=True)
class Remap:
    """What running in the tree needs: folders to put first on sys.path, each as (the tree's
    folder, the project's folder it stands for), and the entries that stay outside the tree
    (with why), said in a refused DONE."""

    first: tuple[tuple[str, str], ...] = ()
    outside: tuple[str, ...] = ()


def remap(entries: list[Entry], project: PurePath, tree: PurePath) -> Remap:
    """Each entry that points into the project (and not already into the tree) at the same
    relative place in the tree. A mapped module whose name is not its file's or folder's name
    cannot be moved by a sys.path folder: it stays outside."""
    first: list[tuple[str, str]] = []
    outside: list[str] = []
    for entry in entries:
        path = PurePath(entry.path)
        if not within(path, project) or within(path, tree):
            continue
        if entry.module is None:
            folder = path
        else:
            package = path.parent if path.name == "__init__.py" else path
            if entry.module not in (package.name, package.stem):
                outside.append(f"{path} (module {entry.module!r}, mapped by {entry.source})")
                continue
            folder = package.parent
        pair = (str(tree / folder.relative_to(project)), str(folder))
        if pair not in first:
            first.append(pair)
    return Remap(tuple(first), tuple(outside))
