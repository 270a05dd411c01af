"""rules/evidence/importtime.py: what runs when a module is imported, and what does not (function
and
lambda bodies, the `__main__` guard's body)."""

from __future__ import annotations

import ast

from ralph.rules.evidence.importtime import import_time

CODE = """
import os
TOP = os.getcwd()

def f():
    INSIDE_F = 1

class C:
    IN_CLASS = 2

    def m(self):
        INSIDE_M = 3

    class Inner:
        IN_INNER = 4

key = lambda: LAMBDA_BODY

if __name__ == "__main__":
    GUARDED = 5
else:
    IMPORTED = 6
"""


def _names(code: str) -> set[str]:
    return {n.id for n in import_time(ast.parse(code)) if isinstance(n, ast.Name)}


def test_top_level_and_class_bodies_run_at_import() -> None:
    found = _names(CODE)
    assert {"TOP", "os", "IN_CLASS", "IN_INNER", "IMPORTED", "key"} <= found


def test_function_lambda_and_main_guard_bodies_do_not() -> None:
    found = _names(CODE)
    assert not {"INSIDE_F", "INSIDE_M", "LAMBDA_BODY", "GUARDED"} & found


def test_classes_are_bound_at_import() -> None:
    classes = {n.name for n in import_time(ast.parse(CODE)) if isinstance(n, ast.ClassDef)}
    assert classes == {"C", "Inner"}
