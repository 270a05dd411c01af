"""`ralph init`: create .ralph/, a PROMPT.md template when there is no spec, and ignore .ralph/
in git."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ralph.errors import LockError, UsageError
from ralph.rules.counts.spec import PROMPT_TEMPLATE
from ralph.rules.counts.state import State
from ralph.specs.discovery import find_spec_paths
from ralph.store.disk.workspace import Workspace, ensure_gitignored
from ralph.store.live.runlock import RunLock
from ralph.store.records.state import save_state


def init(root: Path, *, force: bool, nested: bool = False) -> None:
    """Each step printed as it is done. Inside another project, refused unless `nested`: a
    second .ralph/ there would take every later command run below it away from the first."""
    from ralph.store.disk.root import enclosing_project

    outer = enclosing_project(root)
    if outer is not None and not nested and not (root / ".ralph").is_dir():
        raise UsageError(
            f"{root} is inside the ralph project {outer}; ralph init would make a second "
            "project here",
            f"to work on {outer.name}, run ralph anywhere in it without init; to make a "
            "separate project here after all: ralph init --nested",
        )
    for line in init_project(root, force=force):
        print(line)


def init_project(root: Path, *, force: bool) -> Iterator[str]:
    from ralph.store.disk import confined

    ws = Workspace(root)
    ws.check()
    if ws.state_file.exists() and not force:
        raise LockError(
            f"{ws.rel(ws.dir)}/ already exists in {root}",
            "ralph init --force re-creates it (state, handoffs and history are lost; "
            "specs under .ralph/specs/ are kept)",
        )
    with RunLock(ws.dir):  # never clobber the state of a live run
        if force:
            for entry in ws.dir.iterdir():
                # .ralph/specs/ holds the user's specs; run.lock is held right now
                if entry.name in ("specs", "run.lock", "run.json"):
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    confined.remove_tree(root, entry)  # a link inside is removed, not followed
                else:
                    confined.remove(root, entry)  # a link itself, never its target
        ws.ensure()
        save_state(ws.state_file, State())
    yield f"created {ws.rel(ws.dir)}/ (state.json, guardrails.md, handoffs/, history/)"
    if not find_spec_paths(root):
        confined.write_bytes(root, root / "PROMPT.md", PROMPT_TEMPLATE.encode("utf-8"))
        yield "created PROMPT.md: describe what you want built there"
    if ensure_gitignored(root):
        yield "added .ralph/ to .gitignore"
    yield f"tests: {_tests(root)}"
    yield "next: describe what you want in your specs; each spec runs its own tests (test_command:"
    yield "      in its front matter), ralph.yaml's test_command the whole suite at the end"
    yield "      ralph doctor                 is your agent CLI installed and logged in?"
    yield "      ralph run --agent claude     or codex, gemini, cursor, opencode, pi, aider;"
    yield "                                   --agent 'cmd:CMD' for any other, --agent demo"


def _tests(root: Path) -> str:
    """What the test guard will recognise, by what ralph.yaml says of the tests if it can be
    read (`ralph run` says what is wrong with it)."""
    from ralph.checks.recognised import found_line, recognised_tests
    from ralph.errors import RalphError
    from ralph.store.person.config import load_config

    try:
        globs = load_config(root).tests.paths
    except RalphError:
        globs = None
    return found_line(len(recognised_tests(root, globs)))
