"""The sealed run: after a DONE's checks passed, the spec's test command once more, in room A
itself, with the person's sealed test files (store/person/sealed.py, `ralph seal`) placed at their
paths. A failure refuses the DONE.

It looks like the ordinary run of the spec's test command by construction, so code that is
right only when it is judged has nothing to go by: the same room (room A's path, synced to
the sealed content, then back), the same command line and working folder, the same
environment (room A's, with the variables the `test_command` check sets), the same sandbox
shape (every room run writes its room only: checks/command.py). What differs is the test
files, by the room's content, not by arguments: the sealed files are there and no other test
file is (the agent's could empty the sealed test classes when imported), with the person's
test configuration (conftest.py files included) instead of the agent's, whose hooks could
report any test passed; the agent's tests that need the agent's fixtures are not there either.

The agent learns how many tests failed, never what: the result this module returns is the
only thing of the run that leaves it (no output, no cached result, no test names; the counts
go in the summary, not in `counts`, so the spec's test record is the visible run's). After
each run room A is synced back: the sealed files and whatever the run wrote go. Without a
sandbox, a work tree that changed during the run refuses the DONE.
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import stat
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.checks.command import run_command
from ralph.checks.persontests import person_overlay
from ralph.checks.result import CheckResult, GateResult
from ralph.checks.testguard import TestGuard
from ralph.errors import RalphError
from ralph.process.launcher import Launcher
from ralph.specs.checkconfig import ExternalConfig, command_check
from ralph.specs.frontmatter import SpecMeta, parse_front_matter
from ralph.store.disk import reader
from ralph.store.person import sealed as store

if TYPE_CHECKING:
    from ralph.store.person.config import RalphConfig

SUFFIX = "sealed"  # its kind in results (it runs in room A)
NAME = "sealed tests"
CHECK = "test_command"  # the check whose run it looks like (RALPH_CHECK)
# the work tree must not hold a copy of them: no sandbox stopped their code writing one
CHANGED = "the work tree changed while they ran (a copy of them may be where the agent looks)"
COPIED = "a copy of a sealed file is in the work tree: a person removes it (and seals anew)"
HINT_RUN = "they did not run: the test command runs none of the sealed files"

# overlay -> room A synced with it (None: as it is), and the environment of its checks
RoomA = Callable[[Mapping[str, bytes | None] | None], tuple[Path, dict[str, str]]]


def test_command(
    root: Path, spec: str, meta: SpecMeta | None = None, project: RalphConfig | None = None
) -> ExternalConfig | None:
    """The command that runs `spec`'s sealed files, as the `test_command` check runs it: its
    front matter's (with its timeout and report), else ralph.yaml's (`project`: as the run
    read it; None: as a person accepted it); None when there is none."""
    if meta is None:
        try:
            text = reader.read_text(
                root / spec, limit=reader.TEXT_LIMIT, root=root, follow=True, missing=None
            )
            meta = parse_front_matter(spec, text)
        except (OSError, UnicodeDecodeError, RalphError):
            meta = None
    if meta is not None and meta.test_command:
        return command_check(meta)
    from ralph.store.person.settings import run_or_accepted

    try:
        config = run_or_accepted(root, project)
    except RalphError:
        return None
    return command_check(config)


@dataclass(frozen=True)
class SealedRoom:
    """Where the sealed run happens: room A (synced with an overlay, or back as it is), the
    tree's snapshot (any value with ==, compared before and after the run), the tree and its
    files (where no copy of a sealed file may be), the person's test configuration for a
    test command, and which files are tests (none but the sealed ones stay in the room)."""

    room: RoomA
    snapshot: Callable[[], object]
    tree: Path
    launcher: Launcher  # how the test command starts: in the run's sandbox
    listing: Callable[[], Iterable[str]]
    config: Callable[[str], Mapping[str, bytes | None]]
    is_test: Callable[[str], bool]
    project: RalphConfig | None = None  # the run's ralph.yaml; None: the accepted one

    def overlay(
        self, command: str, files: Mapping[str, bytes], paths: Iterable[str]
    ) -> dict[str, bytes | None]:
        """What room A holds instead for the sealed run (`paths`: the tree's files): no test
        file but the sealed ones, the person's configuration (conftest.py files are: only
        the person's are there)."""
        gone: dict[str, bytes | None] = {
            p: None for p in paths if self.is_test(p) and posixpath.basename(p) != "conftest.py"
        }
        return {**gone, **self.config(command), **files}


def person_config(tree: Path, tests: TestGuard, command: str) -> dict[str, bytes | None]:
    """The test configuration (and the command's runner scripts) as a person last left it."""
    return person_overlay(tree, tests, [command], config_only=True)


def has_sealed(project: Path, spec: str) -> bool:
    """Are files sealed for `spec` (a damaged manifest counts: the run must refuse)?"""
    try:
        return any(spec in e.specs for e in store.listing(project))
    except RalphError:
        return True


def sealed_gate(
    gate: GateResult,
    *,
    project: Path,
    spec: str,
    meta: SpecMeta | None,
    place: SealedRoom,
    cancel: threading.Event | None = None,
    on_result: Callable[[CheckResult], None] | None = None,
) -> GateResult:
    """`gate` as it is when it failed or no file is sealed for `spec`; else with the sealed
    run's result added (a refusal when it failed)."""
    if not gate.passed or not has_sealed(project, spec):
        return gate
    result = run_sealed(project, spec, meta, place, cancel)
    if on_result is not None:
        on_result(result)
    passed = gate.passed and (result.passed or not result.required)
    return GateResult(passed, (*gate.results, result), gate.interrupted or result.interrupted)


def run_sealed(
    project: Path,
    spec: str,
    meta: SpecMeta | None,
    place: SealedRoom,
    cancel: threading.Event | None,
) -> CheckResult:
    def fail(why: str, *, interrupted: bool = False) -> CheckResult:
        return CheckResult(NAME, SUFFIX, False, summary=why, interrupted=interrupted)

    try:
        files: dict[str, bytes] = store.for_spec(project, spec)
    except RalphError as exc:
        return fail(f"cannot be read: {exc.message}")
    cfg = test_command(project, spec, meta, place.project)
    if cfg is None:
        return fail("no test_command to run them with")
    paths = list(place.listing())
    if copies(place.tree, paths, files):
        return fail(COPIED)
    before = place.snapshot()
    path, env = place.room(place.overlay(cfg.command, files, paths))
    try:
        # the variables the `test_command` check sets (checks/external.py), so it is that run
        env = {**env, "RALPH_SPEC": spec, "RALPH_CHECK": CHECK}
        ran = run_command(cfg, path, env, cancel, name=NAME, room=path, launcher=place.launcher)
    finally:
        place.room(None)  # the sealed files and the run's leftovers go
    verdict = judged(ran)
    if not ran.interrupted and place.snapshot() != before:
        return replace(verdict, passed=False, summary=CHANGED)
    return verdict


def copies(tree: Path, paths: Iterable[str], files: Mapping[str, bytes | None]) -> int:
    """How many files of the tree hold exactly the bytes of a sealed file (its size first:
    only a file as large as one is read)."""
    wanted: dict[int, set[bytes]] = {len(b): set() for b in files.values() if b is not None}
    for b in files.values():
        if b is not None:
            wanted[len(b)].add(hashlib.sha256(b).digest())
    found = 0
    for rel in paths:
        try:
            st = os.lstat(tree / rel)
            if stat.S_ISREG(st.st_mode) and st.st_size in wanted:
                data = reader.read_bytes(tree / rel, limit=st.st_size, root=tree)
                found += hashlib.sha256(data).digest() in wanted[st.st_size]
        except (OSError, RalphError):
            continue
    return found


def judged(ran: CheckResult) -> CheckResult:
    """The sealed run's result as the agent may see it: counts, never names or output. The
    room holds no other test file, so a run that executed none ran none of them."""
    counts = ran.counts
    base = CheckResult(NAME, SUFFIX, ran.passed, seconds=ran.seconds, interrupted=ran.interrupted)
    if ran.interrupted:
        return replace(base, passed=False, summary="interrupted")
    if ran.record is not None and ran.record.refusal is not None:  # pytest's words: no names
        return replace(base, passed=False, summary=f"failed ({ran.record.refusal})")
    if counts is not None and counts.failed:
        return replace(base, passed=False, summary=f"{counts.failed} of {counts.executed} failed")
    if "timed out" in ran.summary:
        return replace(base, passed=False, summary=ran.summary.split(" (")[0])
    if counts is not None and not counts.executed:
        return replace(base, passed=False, summary=HINT_RUN)
    if not ran.passed:  # not the exit code: the code under test chooses it (a byte a DONE)
        said = ran.summary if ran.summary.startswith("cannot start") else ""
        said = said or ("no test failed, yet it did" if counts else "no test summary to count from")
        return replace(base, summary=f"failed ({said})")
    told = f"{counts.executed} passed" if counts is not None else "passed"
    return replace(base, summary=told)
