"""`ralph seal FILE... --spec SPEC`, `ralph seal --list`, `ralph unseal FILE`: a person's
acceptance tests moved out of the work tree into ralph's private store (store/person/sealed.py), run
at every DONE that counts and at the final verification (checks/sealed.py).

Exit codes: 0 done; 1 a live run holds the project, or the store is damaged; 2 bad input (a
path outside the project, a folder, a missing file, a spec that does not exist or has no test
command, a file already sealed, nothing sealed at that path, a file in the way of unseal);
5 git holds the file (it would not be out of the agent's reach) and `--even-if-in-git` was
not given.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ralph.errors import ExitCode, RalphError, UsageError, docs_page
from ralph.rules.text.printable import printable
from ralph.schemas.catalog import SCHEMA_VERSION
from ralph.store.disk import confined
from ralph.store.disk.workspace import Workspace
from ralph.store.live.runlock import RunLock
from ralph.store.person import sealed as store
from ralph.store.person.testbaseline import TestStore
from ralph.store.records.state import load_state, save_state

PAGE = docs_page("how-to/sealed-tests.md")
OVERRIDE = "--even-if-in-git"
_HISTORY = "history keeps it until rewritten (git filter-repo, for one)"


class HeldByGit(RalphError):
    """git holds a file a person asked to seal: a person decides (exit 5)."""

    exit_code = ExitCode.NEEDS_HUMAN


def command(
    root: Path,
    files: Sequence[str] | None,
    specs: Sequence[str] | None,
    even_if_in_git: bool,
    list_: bool,
    as_json: bool,
) -> int:
    """`ralph seal` as the command line gives it: `--list` (or `--json`) lists, else seals."""
    if list_ or as_json:
        if files or specs or even_if_in_git:
            raise UsageError(
                "--list takes no file, --spec or --even-if-in-git", "ralph seal --list"
            )
        return show(root, as_json=as_json)
    return seal(root, files or [], specs or [], even_if_in_git=even_if_in_git)


def seal(root: Path, files: Sequence[str], specs: Sequence[str], *, even_if_in_git: bool) -> int:
    """Seal `files` for `specs`, all or none; the exit code."""
    from ralph.store.repository.githeld import held_by_git

    if not files:
        raise UsageError(
            "ralph seal: name the test files to seal", "ralph seal FILE... --spec SPEC"
        )
    if not specs:
        raise UsageError(
            "ralph seal: --spec is missing", "name the spec whose test command runs them"
        )
    ws = Workspace(root)
    ws.check()
    with RunLock(ws.dir) as lock:  # refused while a live run holds the lock
        for note in lock.notes:
            print(note)
        chosen = tuple(_spec_with_tests(root, s) for s in specs)
        sealed = {e.path for e in store.listing(root)}
        paths = [_in_project(root, text) for text in files]
        todo: dict[str, bytes] = {}
        for text, rel in zip(files, paths, strict=True):
            if rel in sealed or rel in todo:
                raise UsageError(f"{text}: already sealed", "ralph seal --list shows what is")
            todo[rel] = _read(root, text, rel)
        held = {rel: where for rel, data in todo.items() if (where := held_by_git(root, rel, data))}
        if held and not even_if_in_git:
            rel, where = next(iter(held.items()))
            raise HeldByGit(
                f"{rel}: git holds it ({where}), so the agent can read it back from there",
                f"seal it anyway with {OVERRIDE}, then remove it from git ({PAGE})",
            )
        for rel, data in todo.items():
            entry = store.add(root, rel, chosen, data)
            confined.remove(root, root / rel)
            _forget_baseline(ws, rel)
            print(printable(f"sealed {rel} for {', '.join(chosen)} ({entry.size} bytes)"))
        _forget_counts(ws)
        for rel, where in held.items():
            untrack = f"`git rm --cached {rel}` takes it out of the index"
            print(printable(f"warning: git still holds {rel} ({where}): {untrack}; {_HISTORY}"))
    if _no_sandbox(root):
        print(f"note: ralph.yaml sets no sandbox: an agent running as you can read them ({PAGE})")
    return ExitCode.OK


def unseal(root: Path, file: str) -> int:
    """Put a sealed file back at its path and forget it; the exit code."""
    ws = Workspace(root)
    ws.check()
    with RunLock(ws.dir) as lock:
        for note in lock.notes:
            print(note)
        rel = _in_project(root, file)
        entry = next((e for e in store.listing(root) if e.path == rel), None)
        if entry is None:
            raise UsageError(f"{file}: not sealed", "ralph seal --list shows what is")
        target = root / rel
        if os.path.lexists(target):
            raise UsageError(
                f"{rel}: a file is in the way of the sealed one",
                "move it away, then run ralph unseal again",
            )
        data = store.blob(root, entry)
        # one name at a time, no link followed (a folder on the way swapped for one is refused)
        fd = confined.open_fd(root, target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, create_dirs=True)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        store.forget(root, rel)
        print(printable(f"unsealed {rel}: back in the work tree, no longer sealed"))
    return ExitCode.OK


def show(root: Path, *, as_json: bool) -> int:
    """`ralph seal --list`."""
    entries = store.listing(root)
    if as_json:
        data = {"schema_version": SCHEMA_VERSION, "sealed": [e.to_json() for e in entries]}
        print(json.dumps(data, indent=1))
        return ExitCode.OK
    if not entries:
        print("no sealed tests")
        return ExitCode.OK
    from ralph.specs.discovery import find_spec_paths

    known = set(find_spec_paths(root))
    for e in entries:
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(e.when))
        # a spec renamed or gone runs them no more: said, so a person seals them anew
        specs = ", ".join(s if s in known else f"{s} (no such spec: never run)" for s in e.specs)
        print(printable(f"{e.path}  for {specs}  {e.size} bytes  sealed {when}"))
    return ExitCode.OK


def _spec_with_tests(root: Path, given: str) -> str:
    """The spec `given` names, when a test command runs its sealed files; else UsageError."""
    from ralph.checks.sealed import test_command
    from ralph.specs.selection import select_specs

    path = select_specs(root, [given])[0]
    if test_command(root, path) is None:
        raise UsageError(
            f"--spec {given}: it has no test_command (front matter, nor ralph.yaml) to run "
            "sealed tests with",
            "add `test_command:` to its front matter",
        )
    return path


def _in_project(root: Path, text: str) -> str:
    """The root-relative posix path `text` names (from the current folder, or absolute)."""
    raw = Path(text).expanduser()
    full = raw if raw.is_absolute() else Path.cwd() / raw
    top = root.resolve()
    try:
        rel = (full.parent.resolve() / full.name).relative_to(top).as_posix()
    except (ValueError, OSError):
        rel = None
    if rel is None or rel == "." or rel.split("/")[0] in (".ralph", ".git"):
        raise UsageError(f"{text}: not a file of the project {root}", "seal files of the project")
    return rel


def _read(root: Path, text: str, rel: str) -> bytes:
    path = root / rel
    if path.is_symlink():
        raise UsageError(f"{text}: a link", "seal the file it points to")
    if path.is_dir():
        raise UsageError(f"{text}: a folder", "name the test files in it")
    if not path.is_file():
        raise UsageError(f"{text}: no such file", "check the path")
    return path.read_bytes()


def _forget_baseline(ws: Workspace, rel: str) -> None:
    """The tests' guard forgets a sealed file, as a test a person deleted between runs: its
    going is no shrinking of the tests."""
    for name in ("tests", "testconfig"):
        tests = TestStore(ws.dir, name)
        if not tests.exists:
            continue
        if rel in tests.baseline():
            tests.take([rel], {})
        seen = tests.seen()
        if seen.pop(rel, None) is not None:
            tests.save_seen(seen)


def _forget_counts(ws: Workspace) -> None:
    """The test counts of every spec's last and best run held the sealed files' tests (a
    test command may run any file): they go, as a person accepting a drop in the counts
    (`ralph accept`) would have it; the next DONE's run is the new bar."""
    if not (ws.state_file.exists() or (ws.store / "state.json").exists()):
        return
    state = load_state(ws.state_file)
    for row in state.specs:
        if row.tests is not None or row.best_tests is not None:
            state = state.with_spec(replace(row, tests=None, best_tests=None))
    save_state(ws.state_file, state)


def _no_sandbox(root: Path) -> bool:
    from ralph.store.person.settings import accepted_config

    try:
        return accepted_config(root).sandbox.profile == "off"
    except RalphError:
        return True
