"""`ralph accept`: show what an agent changed that waits for a person's say (the settings in
ralph.yaml, a spec's checks, the tests and their configuration, the ignore rules), and accept it.

Exit codes: 0 when nothing waits any more (accepted, or there was nothing), 5 when something
still waits (`--dry-run`, declined, or no terminal to confirm on without `--yes`), 1 on an
error (a live run holds the project), 2 on a usage error (`--spec` is not a spec).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path

from ralph.checks.acceptance import Pending, Scope
from ralph.checks.acceptors import accept_all, pending_all
from ralph.errors import ExitCode, LockError, UsageError
from ralph.rules.counts.breaker import Breaker
from ralph.rules.counts.state import State
from ralph.rules.text.printable import printable
from ralph.specs.discovery import find_spec_paths, read_spec
from ralph.specs.selection import select_specs
from ralph.store.disk.workspace import Workspace
from ralph.store.live.runlock import RunLock
from ralph.store.records.state import load_state, save_state
from ralph.ui.terminal import terminal_confirm

INDENT = "    "
MAX_LINES = 40  # lines shown per item; the rest is counted


def accept(
    root: Path,
    *,
    spec: str | None,
    yes: bool,
    dry_run: bool,
    confirm: Callable[[str], bool] | None = None,
) -> int:
    """Show what waits, accept it when confirmed; the exit code."""
    if yes and dry_run:
        raise UsageError("--yes accepts and --dry-run only shows", "give one of them")
    ws = Workspace(root)
    ws.check()
    paths = find_spec_paths(root)
    only = select_specs(root, [spec])[0] if spec else None
    specs = tuple(s for s in (read_spec(root, p) for p in paths) if s is not None)
    scope = Scope(root, ws.dir, specs, only, _test_globs(root))
    if dry_run or not (ws.state_file.exists() or (ws.store / "state.json").exists()):
        return _show(pending_all(scope, _load(ws)), dry_run=True)
    try:
        with RunLock(ws.dir) as lock:
            for note in lock.notes:  # what taking the project put right, one line each
                print(note)
            state = _load(ws)
            items = pending_all(scope, state)
            if _show(items, dry_run=False) == ExitCode.OK:
                return ExitCode.OK
            if not yes:
                ask = confirm if confirm is not None else terminal_confirm()
                if ask is None:
                    print("no terminal to confirm on: run `ralph accept --yes` to accept them")
                    return ExitCode.NEEDS_HUMAN
                if not ask(f"Accept {_count(items)}? [y/N] "):
                    print("nothing accepted")
                    return ExitCode.NEEDS_HUMAN
            accepted = accept_all(scope, state, items)
            if _about(items, state.breaker.subject):
                # it opened over what the person just accepted: their say closes it
                accepted = replace(accepted, breaker=Breaker())
                print("the circuit breaker is closed again")
            save_state(ws.state_file, accepted)
    except LockError as exc:
        raise LockError(
            exc.message,
            "accept at its escalation (Accept), or stop it (`ralph cancel`) and run "
            "`ralph accept` again",
        ) from None
    print(f"accepted {_count(items)}; the next run trusts them")
    return ExitCode.OK


def _about(items: Sequence[Pending], subject: str | None) -> bool:
    """Is the breaker's subject (a spec) among what was accepted (project-wide items concern
    every spec)?"""
    return subject is not None and any(item.spec in (None, subject) for item in items)


def _test_globs(root: Path) -> tuple[str, ...] | None:
    from ralph.store.person.settings import accepted_config

    paths = accepted_config(root).tests.paths
    return tuple(paths) if paths is not None else None


def _load(ws: Workspace) -> State:
    return load_state(ws.state_file) if ws.state_file.exists() else State()


def _show(items: Sequence[Pending], *, dry_run: bool) -> int:
    """Print what waits; OK when nothing does, else NEEDS_HUMAN."""
    if not items:
        print(
            "nothing waits for a person's say: "
            "no agent changed settings, checks, ignore rules, tests or their configuration"
        )
        return ExitCode.OK
    print(f"{_count(items)} by an agent {'wait' if len(items) > 1 else 'waits'} for your say:")
    for item in items:
        print(f"\n[{item.kind}] {printable(item.summary)}")
        for line in item.lines[:MAX_LINES]:
            # The agent's diff: cursor movements in it could erase the very line under review.
            print(INDENT + printable(line))
        if len(item.lines) > MAX_LINES:
            print(f"{INDENT}... and {len(item.lines) - MAX_LINES} more lines")
    print()
    if dry_run:
        print("accept with `ralph accept` (or `ralph accept --yes` in a script)")
    return ExitCode.NEEDS_HUMAN


def _count(items: Sequence[Pending]) -> str:
    return "1 change" if len(items) == 1 else f"{len(items)} changes"
