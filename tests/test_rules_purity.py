"""rules/ is pure: its modules import only the standard library and each other, and do no I/O."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

RULES = Path(__file__).resolve().parents[1] / "src" / "ralph" / "rules"
# Standard modules whose purpose is I/O, processes or threads: a rule has no use for them.
IO_MODULES = {
    "asyncio", "fileinput", "glob", "http", "io", "logging", "multiprocessing", "os", "select",
    "selectors", "shutil", "signal", "socket", "sqlite3", "subprocess", "tempfile", "threading",
    "urllib",
}  # fmt: skip
IO_CALLS = {"open", "print", "input"}
# Methods that reach the file system (Path and file objects).
IO_METHODS = {"read_text", "read_bytes", "write_text", "write_bytes", "mkdir", "unlink", "touch"}
# Reading the clock: a rule is told the time (`now`), so the same input gives the same answer.
CLOCK_CALLS = {"time", "monotonic", "perf_counter", "now", "today"}
# pathlib: only its Pure* classes; tomli: the standard tomllib itself, for Python 3.10
STANDARD = sys.stdlib_module_names - {"pathlib"} | {"tomli"}


def _problems(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found: list[str] = []
    for node in ast.walk(tree):
        names: list[tuple[str, str | None]]
        if isinstance(node, ast.Import):
            names = [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            names = [(node.module or "", alias.name) for alias in node.names]
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in IO_CALLS
        ):
            found.append(f"line {node.lineno}: calls {node.func.id}()")
            continue
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in CLOCK_CALLS
        ):
            found.append(f"line {node.lineno}: reads the clock (.{node.func.attr}())")
            continue
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Attribute)
            and node.func.attr in IO_METHODS
        ):
            found.append(f"line {node.lineno}: calls .{node.func.attr}()")
            continue
        else:
            continue
        for module, name in names:
            top = module.split(".")[0]
            if module == "ralph.rules" or module.startswith("ralph.rules."):
                continue
            if module == "pathlib" and name is not None and name.startswith("Pure"):
                continue  # path arithmetic, no file system
            if top == "__future__" or (top in STANDARD and top not in IO_MODULES):
                continue
            found.append(f"line {node.lineno}: imports {module}{'.' + name if name else ''}")
    return found


@pytest.mark.parametrize("path", sorted(RULES.glob("*.py")), ids=lambda p: p.name)
def test_rules_module_is_pure(path: Path) -> None:
    assert _problems(path) == []


def test_the_purity_check_finds_io_and_the_clock(tmp_path: Path) -> None:
    # the control: a check that finds nothing would pass the test above
    impure = tmp_path / "impure.py"
    impure.write_text(
        "import subprocess\nfrom ralph.store.disk import files\nimport time\n"
        "def f(p):\n    open(p)\n    p.write_text('x')\n    return time.time()\n"
    )
    assert _problems(impure) == [
        "line 1: imports subprocess",
        "line 2: imports ralph.store.disk.files",
        "line 5: calls open()",
        "line 6: calls .write_text()",
        "line 7: reads the clock (.time())",
    ]
