"""The shape of the code: packages show the architecture, and each rule of it is checked here.

Imports are read with `ast` from every module under src/ralph, wherever they appear: at the top,
inside a function (lazy, for the start-up budget) or under TYPE_CHECKING. A cycle hidden behind a
lazy import is still a cycle.
"""

from __future__ import annotations

import ast
import statistics
from collections.abc import Iterator
from functools import cache
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
PACKAGE = SRC / "ralph"
MAX_MODULE_LINES = 400
MAX_CLASS_LINES = 300


def _module_name(path: Path) -> str:
    parts = path.relative_to(SRC).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


@cache
def _modules() -> dict[str, Path]:
    return {_module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@cache
def _tree(name: str) -> ast.Module:
    return ast.parse(_modules()[name].read_text(encoding="utf-8"))


def _imports(name: str) -> set[str]:
    """The ralph modules `name` imports, anywhere in its file."""
    modules = _modules()
    found: set[str] = set()
    for node in ast.walk(_tree(name)):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "ralph")
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            if node.module.split(".")[0] != "ralph":
                continue
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in modules else node.module)
    return {m for m in found if m in modules and m != name}


def _graph() -> dict[str, set[str]]:
    return {name: _imports(name) for name in _modules()}


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for root, children_of_root in graph.items():
        if root in index:
            continue
        work: list[tuple[str, Iterator[str]]] = [(root, iter(sorted(children_of_root)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = counter
                counter += 1
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_no_import_cycle_among_ralphs_modules() -> None:
    assert _cycles(_graph()) == []


def test_the_cycle_finder_finds_a_cycle() -> None:
    # the control: a finder that never finds anything would pass the test above
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert _cycles(graph) == [["a", "b", "c"]]


# The layers, bottom first: a package imports only from layers below its own.
LAYERS = (
    {"schemas"},  # data files and their version: below everything that prints JSON
    {"errors", "rules"},
    {"process"},
    {"store", "agents"},
    {"specs"},  # read through store/reader.py, the one reader of what an agent could touch
    {"checks"},
    {"run"},
    {"ui"},
    {"commands"},
    {"cli"},
    {"entry"},
    {"__main__"},
)


def _layer_violations(graph: dict[str, set[str]]) -> list[str]:
    """`a -> b` for each import of a module `b` whose package is not in a layer below `a`'s."""
    level = {package: n for n, layer in enumerate(LAYERS) for package in layer}

    def package(module: str) -> str:
        return module.split(".")[1]

    return sorted(
        f"{module} -> {target}"
        for module, targets in graph.items()
        if module != "ralph"
        for target in targets
        if target != "ralph"
        and package(target) != package(module)
        and level[package(target)] >= level[package(module)]
    )


def test_packages_import_only_from_the_layers_below() -> None:
    modules = {
        package for name in _modules() if name != "ralph" for package in [name.split(".")[1]]
    }
    assert modules == set().union(*LAYERS)  # a new package takes its place in LAYERS
    assert _layer_violations(_graph()) == []


def test_the_layer_check_finds_an_upward_import() -> None:
    # the control: rules importing the run, and two packages of one layer importing each other
    graph = {
        "ralph.rules.a": {"ralph.run.b"},
        "ralph.store.c": {"ralph.specs.d"},
        "ralph.run.b": set(),
    }
    assert _layer_violations(graph) == [
        "ralph.rules.a -> ralph.run.b",
        "ralph.store.c -> ralph.specs.d",
    ]


def test_no_module_is_over_400_lines_and_the_median_stays_small() -> None:
    sizes = {
        name: len(path.read_text(encoding="utf-8").splitlines())
        for name, path in _modules().items()
    }
    too_long = {name: n for name, n in sizes.items() if n > MAX_MODULE_LINES}
    assert too_long == {}
    code = [n for name, n in sizes.items() if _modules()[name].name != "__init__.py"]
    assert statistics.median(code) <= 150


def test_no_class_is_over_300_lines() -> None:
    too_long = []
    for name in _modules():
        for node in ast.walk(_tree(name)):
            if isinstance(node, ast.ClassDef) and node.end_lineno is not None:
                length = node.end_lineno - node.lineno + 1
                if length > MAX_CLASS_LINES:
                    too_long.append(f"{name}.{node.name}: {length} lines")
    assert too_long == []


def test_each_package_init_says_in_one_line_what_lives_there() -> None:
    for name, path in _modules().items():
        if path.name != "__init__.py" or name == "ralph":
            continue
        body = _tree(name).body
        doc = ast.get_docstring(_tree(name))
        assert doc is not None and "\n" not in doc.strip(), f"{name}: one-line docstring"
        assert len(body) == 1, f"{name}/__init__.py holds code; it should say what lives there"


def test_every_module_says_what_it_is() -> None:
    missing = [name for name in _modules() if ast.get_docstring(_tree(name)) is None]
    assert missing == []


def test_only_the_command_line_imports_typer() -> None:
    """Commands are plain functions: Typer's parsing stays in cli.py."""

    def imports_typer(name: str) -> bool:
        for node in ast.walk(_tree(name)):
            if isinstance(node, ast.Import):
                roots = {a.name.split(".")[0] for a in node.names}
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                roots = {node.module.split(".")[0]}
            else:
                continue
            if roots & {"typer", "click"}:
                return True
        return False

    assert {name for name in _modules() if imports_typer(name)} == {"ralph.cli"}
