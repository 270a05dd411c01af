"""process/spawn.py: starting a process in its own session."""

from __future__ import annotations

import ast
from pathlib import Path


def test_only_the_process_package_starts_processes() -> None:
    """Limits, kills and orphan reaping hold only for processes started in ralph.process."""
    src = Path(__file__).resolve().parents[2] / "src" / "ralph"
    starters: list[str] = []
    popens: list[str] = []
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            owner = node.func.value
            name = f"{owner.id}.{node.func.attr}" if isinstance(owner, ast.Name) else ""
            if name in ("subprocess.Popen", "subprocess.run") or name.startswith("subprocess.c"):
                popens.append(path.name)
            starts = ("subprocess.", "os.exec", "os.spawn", "os.posix_spawn", "os.system")
            if (name.startswith(starts) or name == "os.fork") and path.parent.name != "process":
                starters.append(f"{path.relative_to(src).as_posix()}: {name}")
    assert starters == []
    # and each through process/started.py, which records it: an orphan is what it did not start
    assert sorted(set(popens)) == ["started.py"]
