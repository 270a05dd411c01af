"""The person's tests, run as the person wrote them: what the second room of a DONE holds
instead of the tree's files (the room itself is store/rooms/room.py's).

An agent may add lines that weaken a test (an early `return`, a `try/except: pass`, a second
`def test_x` that shadows the first, a local `mean()`), or steer what runs (`--deselect` in
`pytest.ini`, a conftest hook that reports failures as passes, a Makefile target rewritten to
`echo`). So when the tests or their configuration differ from the baseline (the person's, as
recorded in the private store: checks/testguard.py, checks/testconfig.py), the test commands
run once more with the person's versions against the agent's code:

- every baseline test file at its baseline path, as recorded (a renamed one under its old name);
- the baseline configuration: whole files as recorded, a mixed file (`pyproject.toml`,
  `setup.cfg`, `package.json`) as the agent left it with its test-steering part put back;
- test files and configuration the person never had left out (a new mixed file loses its
  steering part): the agent's new tests are run by the first room, with its configuration;
  but a new test file the test command names (`pytest tests/test_new.py`: the spec asked for
  it) stays, or the command could not run at all.

`{}` too when the person wrote no test yet: there is nothing to run as they wrote it.

`{}` when nothing differs: no second run.
"""

from __future__ import annotations

import os
import posixpath
import shlex
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.checks.testconfig import tree_files
from ralph.rules.environment.configparts import merge
from ralph.rules.evidence.testconfig import (
    command_scripts,
    helper,
    holds_only_tests,
    kind,
    name_kind,
)
from ralph.rules.evidence.testfiles import is_test
from ralph.store.person.testbaseline import read

if TYPE_CHECKING:
    from ralph.checks.testguard import TestGuard

Overlay = dict[str, bytes | None]


def person_overlay(
    root: Path, tests: TestGuard, commands: Sequence[str], *, config_only: bool = False
) -> Overlay:
    """root-relative posix path -> the bytes room B holds there instead of the tree's, or None
    to leave the file out; `{}` when the tests and their configuration are the person's.
    `commands`: the test commands that will run (their runner scripts are configuration).
    `config_only`: the configuration (conftest.py files included) alone, the tree's other test
    files left as they are (the sealed tests' room: checks/sealed.py), even when the person
    wrote no test."""
    out: Overlay = {}
    config = tests.config
    tbase = tests.store.baseline() if tests.store.exists else {}
    if not config_only and not any(is_test(p, tests.globs) for p in tbase):
        return {}  # the person wrote no test: there is nothing to run as they wrote it
    cbase = config.store.baseline() if config.store.exists else {}
    for path, sha in tbase.items():
        # a Rust source file with unit tests in it is code first: the agent's to change
        if is_test(path, tests.globs) and (not config_only or _hook(path)):
            _put(out, root, path, tests.store.blob(sha) or "")
    for path, sha in cbase.items():
        if path not in tbase:
            _put(out, root, path, _room_text(path, config.store.blob(sha) or "", root))
    scripts = {p for c in (*commands, *config.commands) for p in command_scripts(c)}
    words = {w.removeprefix("./").split("::")[0] for c in commands for w in _words(c)}
    for path, name, names in tree_files(root):
        if path in tbase or path in cbase:
            continue
        if is_test(path, tests.globs) and (path in words or (config_only and not _hook(path))):
            continue  # the command runs it by name, or it is no configuration
        if is_test(path, tests.globs) or path in scripts or _config(path, name, names, tests.globs):
            _put(out, root, path, _room_text(path, None, root))
    for path in scripts - set(tbase) - set(cbase) - set(out):  # one in a dot-folder, say
        _put(out, root, path, None)
    return out


def _hook(path: str) -> bool:
    """A test file that steers how every test runs (pytest loads it by itself, and its hooks
    can report a failed test passed): configuration to `config_only`."""
    return posixpath.basename(path) == "conftest.py"


def _words(command: str) -> list[str]:
    try:
        return shlex.split(command)
    except ValueError:  # an unclosed quote: the command names nothing ralph can read
        return []


def _room_text(path: str, base: str | None, root: Path) -> str | None:
    """What room B holds at `path`: the person's `base` (None: the person had none), or for a
    mixed file the tree's with the person's steering part."""
    if kind(path) != "mixed":
        return base
    now = read(root, path)
    if now is None:
        return base
    return merge(posixpath.basename(path), base, now)


def _config(path: str, name: str, names: Sequence[str], globs: Sequence[str]) -> bool:
    """Test configuration by its name or place, or a test folder's `__init__.py`."""
    if name == "__init__.py" and holds_only_tests(names, globs):
        return True
    return name_kind(name) is not None or helper(path)


def _put(out: Overlay, root: Path, path: str, want: str | None) -> None:
    """Note `want` at `path` unless the tree already holds exactly that."""
    if want is None:
        if os.path.lexists(root / path):
            out[path] = None
        return
    if (root / path).is_symlink() or read(root, path) != want:
        out[path] = want.encode("utf-8")
