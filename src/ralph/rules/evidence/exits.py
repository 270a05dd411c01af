"""Code that ends the test run while it is imported (pure, `ast`).

A module of the code under test that calls `os._exit(0)` (or `sys.exit`, `os.abort` ...) at
its top level stops the test runner before it prints its summary; one that prints a runner's
summary first (`4 passed`) forges the evidence. A call when the module is imported, outside
`if __name__ == "__main__":`, is refused; one inside a function is not (it runs only when
called). A `__main__.py` is a program's entry point, not an imported module.
"""

from __future__ import annotations

import ast

from ralph.rules.evidence.harnesspatch import dotted, imported_names
from ralph.rules.evidence.importtime import import_time

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
    for node in import_time(tree):
        if isinstance(node, ast.Call):
            what = dotted(node.func, names) or getattr(node.func, "id", None)
            if what in EXITS:
                found.append((node.lineno, f"calls `{what}` when it is imported"))
    return sorted(set(found))
