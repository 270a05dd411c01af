"""What runs while a module is imported (pure, `ast`): its top level and class bodies, not the
bodies of functions and lambdas, nor what `if __name__ == "__main__":` guards."""

from __future__ import annotations

import ast
from collections.abc import Iterator


def import_time(tree: ast.Module) -> Iterator[ast.AST]:
    """Every node of `tree` run when the module is imported."""
    return _import_time(tree.body)


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
            yield stmt  # its name is bound at import
            yield from _import_time(stmt.body)
            continue
        yield from _walk_no_defs(stmt)


def _walk_no_defs(node: ast.AST) -> Iterator[ast.AST]:
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            if isinstance(child, ast.ClassDef):
                yield child
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
