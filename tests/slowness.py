"""Which tests are slow, by what they do: `pytest -m "not slow"` (make quick) is the inner loop.

A test is slow when it drives ralph end to end: `ralph run` through the CLI, the CLI as a
process, an agent CLI, a sandbox or a real test command; in short, when it starts any process
but git. Everything under tests/e2e/ is slow; elsewhere a test says so with
`@pytest.mark.slow`. A test not marked slow that does one of these things fails, naming what
it did and where it belongs, so the inner loop stays an inner loop without anyone timing it.
Processes are seen through Python's audit hook on `subprocess.Popen` (ralph's only way to start
one, process/spawn.py), which observes and changes nothing.
"""

from __future__ import annotations

import os
import re
import shlex
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

E2E = Path(__file__).resolve().parent / "e2e"
QUICK_PROGRAMS = frozenset({"git", "git.exe"})  # milliseconds each: unit tests of store/ use it


class _Watch:
    """What the test now running did that makes a test slow (None: no test is running, or it
    is marked slow and may do anything)."""

    done: list[str] | None = None


_watch = _Watch()


def is_slow(item: pytest.Item) -> bool:
    return item.get_closest_marker("slow") is not None


def mark_slow(items: Sequence[pytest.Item]) -> None:
    """Mark slow the tests of tests/e2e/ (the model server of `mock_llm` runs in-process: the
    agent CLIs a test points at it are what make it slow, and the audit hook sees them)."""
    for item in items:
        if item.path.is_relative_to(E2E):
            item.add_marker(pytest.mark.slow)


def did(what: str) -> None:
    """Record that the running test did something only a slow test may do."""
    if _watch.done is not None and what not in _watch.done:
        _watch.done.append(what)


def _audit(event: str, args: tuple[Any, ...]) -> None:
    if _watch.done is None or event != "subprocess.Popen":
        return
    program = _program(*args[:2])
    if program not in QUICK_PROGRAMS:
        did(f"starts `{program}`")


def _program(executable: str | bytes | os.PathLike[str] | None, argv: Any) -> str:
    """The program's file name. On POSIX Popen has filled `executable` in from argv (or the
    shell) by now; on Windows it may be None, argv then being one command line."""
    if executable is None:
        line = os.fsdecode(argv if isinstance(argv, (str, bytes)) else next(iter(argv), ""))
        words = shlex.split(line, posix=False)
        executable = words[0].strip('"') if words else ""
    return re.split(r"[\\/]", os.fsdecode(executable))[-1]


sys.addaudithook(_audit)  # once per process: an audit hook cannot be removed


@pytest.fixture(autouse=True)
def slow_is_what_it_does(request: pytest.FixtureRequest) -> Iterator[None]:
    """Fails a test not marked slow that drove ralph end to end or started a process but git."""
    if is_slow(request.node):
        yield
        return
    done: list[str] = []
    _watch.done = done
    try:
        yield
    finally:
        _watch.done = None
    if done:
        pytest.fail(
            f"{request.node.nodeid} {', '.join(done)}: a test that does this is slow; "
            "move it to tests/e2e/ (every test there is slow) or mark it @pytest.mark.slow",
            pytrace=False,
        )
