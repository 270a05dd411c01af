"""Code that patches the test harness, read from Python source (pure, `ast`).

The code under test runs in the test runner's process: an assignment, a `setattr`/`delattr`
or a `__dict__` write to `unittest`, `unittest.TestCase` (`assertEqual = lambda *a: None`),
`pytest`/`_pytest`, `builtins` or `sys.modules`, or replacing `sys.exit`, `os._exit` or
`AssertionError`, turns failing tests into passing ones. A static reading finds the plain
forms; code built at run time (`exec`, `getattr` chains, encoded strings) hides from it.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ralph.rules.evidence.importtime import import_time

HARNESS = ("unittest", "pytest", "_pytest", "builtins", "sys.modules")
REPLACED = frozenset({"sys.exit", "os._exit", "builtins.AssertionError", "AssertionError"})
# calls that set or delete an attribute of their first argument
SETTERS = frozenset({"setattr", "delattr", "__setattr__", "__delattr__", "setitem"})
WRITERS = frozenset({"update", "setdefault", "pop", "popitem", "clear", "__setitem__"})


def harness_patches(source: str, *, at_import: bool = False) -> list[tuple[int, str]]:
    """(line, what) for each patch of the harness in `source`; [] when it does not parse
    (not Python: the test run would fail on it anyway). `at_import`: only the patches made
    while the module is imported (a test file: its tests may patch what they test, e.g.
    `monkeypatch.setattr(builtins, "input", ...)`, inside a test)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names = imported_names(tree)
    found: list[tuple[int, str]] = []
    for node in import_time(tree) if at_import else ast.walk(tree):
        for target, verb in _writes(node):
            what = _harness(target, names, inside=verb.startswith(("calls", "patches")))
            if what is not None and not _itself(target):
                found.append((getattr(node, "lineno", 0), f"{verb} `{what}`"))
    return sorted(set(found))


def imported_names(tree: ast.AST) -> dict[str, str]:
    """Local name -> the dotted name it stands for, from every import in the module."""
    names: dict[str, str] = {"__builtins__": "builtins"}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname:
                    names[alias.asname] = alias.name
                else:
                    top = alias.name.split(".")[0]
                    names[top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                names[alias.asname or alias.name] = f"{node.module}.{alias.name}"
    return names


def dotted(node: ast.expr, names: dict[str, str]) -> str | None:
    """The dotted name an expression stands for (`TestCase.assertEqual` ->
    `unittest.TestCase.assertEqual`), through `x.__dict__[...]` and `vars(x)[...]` too."""
    if isinstance(node, ast.Name):
        return names.get(node.id, node.id if node.id == "AssertionError" else None)
    if isinstance(node, ast.Attribute):
        base = dotted(node.value, names)
        return None if base is None else f"{base}.{node.attr}"
    if isinstance(node, ast.Subscript):
        return dotted(node.value, names)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Name)
        and node.args
        and node.func.id in ("vars", "getattr")
    ):
        return dotted(node.args[0], names)
    return None


def _writes(node: ast.AST) -> Iterator[tuple[ast.expr, str]]:
    """(what is written, how) for the writes a node makes."""
    if isinstance(node, ast.Assign):
        for target in node.targets:
            yield from _targets(target, "assigns")
    elif isinstance(node, (ast.AugAssign, ast.AnnAssign)):
        yield from _targets(node.target, "assigns")
    elif isinstance(node, ast.Delete):
        for target in node.targets:
            yield from _targets(target, "deletes")
    elif isinstance(node, (ast.ClassDef, ast.FunctionDef)) and node.name == "AssertionError":
        yield ast.Name(id="AssertionError"), "redefines"
    elif isinstance(node, ast.Call):
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name in SETTERS and node.args:
            yield node.args[0], f"calls {name}() on"
        elif name in WRITERS and isinstance(func, ast.Attribute):
            yield func.value, f"calls .{name}() on"
        elif name == "object" and isinstance(func, ast.Attribute) and node.args:
            yield node.args[0], "patches"  # mock.patch.object(target, ...)


def _targets(target: ast.expr, verb: str) -> Iterator[tuple[ast.expr, str]]:
    if isinstance(target, (ast.Tuple, ast.List)):
        for item in target.elts:
            yield from _targets(item, verb)
    elif isinstance(target, ast.Starred):
        yield from _targets(target.value, verb)
    elif isinstance(target, (ast.Attribute, ast.Subscript)) or (
        isinstance(target, ast.Name) and target.id == "AssertionError"
    ):
        yield target, verb


def _harness(target: ast.expr, names: dict[str, str], *, inside: bool) -> str | None:
    """The harness object `target` writes to, or None. `inside`: what is written is inside
    `target` (a call's first argument), not `target` itself (a name rebound)."""
    name = dotted(target, names)
    if name is None:
        return None
    if name in REPLACED:
        return name
    if isinstance(target, ast.Name) and not inside:
        return None
    for root in HARNESS:
        if name == root or name.startswith(root + "."):
            return name
    return None


def _itself(target: ast.expr) -> bool:
    """`sys.modules[__name__] = ...`: a module that replaces itself (a lazy module) changes
    only its own code."""
    return (
        isinstance(target, ast.Subscript)
        and isinstance(target.slice, ast.Name)
        and target.slice.id == "__name__"
    )
