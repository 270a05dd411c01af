"""Code that ends the test run while it is imported (pure, `ast`).

A module of the code under test that calls `os._exit(0)` (or `sys.exit`, `os.abort` ...) at
its top level stops the test runner before it prints its summary; one that prints a runner's
summary first (`4 passed`) forges the evidence. A call when the module is imported, outside
`if __name__ == "__main__":`, is refused; one inside a function is not (it runs only when
called). A `__main__.py` is a program's entry point, not an imported module.
"""

from __future__ import annotations

import ast
from collections.abc import Iterator

from ralph.rules.harnesspatch import dotted, imported_names

EXITS = frozenset(
    {"os._exit", "sys.exit", "exit", "quit", "os.abort", "os.kill", "signal.raise_signal"}
)


def import_exits(source: str) -> list[tuple[int, str]]:
    """(line, what) for each call that ends the process while the module is imported (at its
    top level or in a class body, outside `if __name__ == "__main__":`): the test run stops
    there, before its summary, and a summary printed before it is the module's, not the
    runner's. [] when the source does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return []
    names = imported_names(tree)
    found: list[tuple[int, str]] = []
    for node in _import_time(tree.body):
        if isinstance(node, ast.Call):
            what = dotted(node.func, names) or getattr(node.func, "id", None)
            if what in EXITS:
                found.append((node.lineno, f"calls `{what}` when it is imported"))
    return sorted(set(found))


def _import_time(body: list[ast.stmt]) -> Iterator[ast.AST]:
    """Every node run when a module is imported: not the bodies of functions (nor lambdas),
    nor what `if __name__ == "__main__":` guards."""
    for stmt in body:
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        if isinstance(stmt, ast.If) and _main_guard(stmt.test):
            yield from _import_time(stmt.orelse)
            continue
        if isinstance(stmt, ast.ClassDef):
            yield from _import_time(stmt.body)
            continue
        yield from _walk_no_defs(stmt)


def _walk_no_defs(node: ast.AST) -> Iterator[ast.AST]:
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            if isinstance(child, ast.ClassDef):
                yield from _import_time(child.body)
            continue
        if isinstance(child, ast.If) and _main_guard(child.test):
            for stmt in child.orelse:
                yield from _walk_no_defs(stmt)
            continue
        yield from _walk_no_defs(child)


def _main_guard(test: ast.expr) -> bool:
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and any(isinstance(c, ast.Constant) and c.value == "__main__" for c in test.comparators)
    )
