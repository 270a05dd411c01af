"""The sealed run: after a DONE's checks passed, the spec's test command once more in the room
"<tree>.sealed", with the person's sealed test files (store/sealed.py, `ralph seal`) placed at
their paths. A failure refuses the DONE.

The agent learns how many tests failed, never what: the result this module returns is the
only thing of the run that leaves it (no output, no cached result, no test names; the counts
go in the summary, not in `counts`, so the spec's test record is the visible run's). After
each run the sealed files and whatever the run wrote go from the room (it is synced without
them). Under a sandbox the run sees the work tree read-only and a /tmp of its own
(ProcessRequest.sealed); without one, a work tree that changed during the run refuses the DONE.
"""

from __future__ import annotations

import hashlib
import os
import stat
import threading
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path

from ralph.checks.command import run_command
from ralph.checks.context import RoomMaker
from ralph.checks.persontests import person_overlay
from ralph.checks.result import CheckResult, GateResult
from ralph.checks.testguard import TestGuard
from ralph.errors import RalphError
from ralph.rules.testcounts import TestCounts
from ralph.specs.frontmatter import ExternalConfig, SpecMeta, parse_front_matter
from ralph.store import sealed as store
from ralph.store.roomsync import wipe

SUFFIX = "sealed"  # the room "<tree's room>.sealed"
NAME = "sealed tests"
# the work tree must not hold a copy of them: no sandbox stopped their code writing one
CHANGED = "the work tree changed while they ran (a copy of them may be where the agent looks)"
COPIED = "a copy of a sealed file is in the work tree: a person removes it (and seals anew)"
HINT_RUN = "they did not run: the test command runs none of the sealed files"


def test_command(root: Path, spec: str, meta: SpecMeta | None = None) -> ExternalConfig | None:
    """The command that runs `spec`'s sealed files: its front matter's `test_command`, else
    ralph.yaml's (as a person accepted it); None when there is none."""
    if meta is None:
        try:
            text = (root / spec).read_text(encoding="utf-8")
            meta = parse_front_matter(spec, text)
        except (OSError, UnicodeDecodeError, RalphError):
            meta = None
    if meta is not None and meta.test_command:
        return ExternalConfig(command=meta.test_command, timeout=meta.test_timeout)
    from ralph.store.settings import accepted_config

    try:
        config = accepted_config(root)
    except RalphError:
        return None
    if config.test_command:
        return ExternalConfig(command=config.test_command, timeout=config.test_timeout)
    return None


@dataclass(frozen=True)
class SealedRoom:
    """Where the sealed run happens: the tree's rooms, its snapshot (any value with ==,
    compared before and after the run), the tree and its files (where no copy of a sealed
    file may be), and the person's test configuration for a test command (the room holds it
    instead of the agent's)."""

    rooms: RoomMaker
    snapshot: Callable[[], object]
    tree: Path
    listing: Callable[[], Iterable[str]]
    config: Callable[[str], Mapping[str, bytes | None]]


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
    result = run_sealed(gate, project, spec, meta, place, cancel)
    if on_result is not None:
        on_result(result)
    passed = gate.passed and (result.passed or not result.required)
    return GateResult(passed, (*gate.results, result), gate.interrupted or result.interrupted)


def run_sealed(
    gate: GateResult,
    project: Path,
    spec: str,
    meta: SpecMeta | None,
    place: SealedRoom,
    cancel: threading.Event | None,
) -> CheckResult:
    def fail(why: str, *, interrupted: bool = False) -> CheckResult:
        return CheckResult(NAME, SUFFIX, False, summary=why, interrupted=interrupted)

    try:
        files: dict[str, bytes | None] = dict(store.for_spec(project, spec))
    except RalphError as exc:
        return fail(f"cannot be read: {exc.message}")
    cfg = test_command(project, spec, meta)
    if cfg is None:
        return fail("no test_command to run them with")
    if copies(place.tree, place.listing(), files):
        return fail(COPIED)
    before = place.snapshot()
    # the agent's test configuration could report any test passed (a conftest hook): the
    # person's, as room B has it, with the sealed files on top
    config = place.config(cfg.command)
    path, env = place.rooms(SUFFIX, {**config, **files})
    tmp = path.parent / "tmp"  # its TMPDIR, in the store (a sandbox gives it its own)
    try:
        wipe(tmp)
        tmp.mkdir(mode=0o700)
        env = {**env, "TMPDIR": str(tmp), "TMP": str(tmp), "TEMP": str(tmp)}
        ran = run_command(cfg, path, env, cancel, name=NAME, room=path, sealed=True)
    finally:
        wipe(tmp)
        # the sealed files and the run's leftovers go (the configuration stays: less to sync)
        place.rooms(SUFFIX, {**config, **dict.fromkeys(files)})
    verdict = judged(ran, visible(gate))
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
                digest = hashlib.sha256((tree / rel).read_bytes()).digest()
                found += digest in wanted[st.st_size]
        except OSError:
            continue
    return found


def visible(gate: GateResult) -> TestCounts | None:
    """The counts of the visible tests' run by the spec's test command in room A, if any."""
    for r in gate.results:
        if r.name == "test_command" and not r.skipped:
            return r.counts
    return None


def judged(ran: CheckResult, seen: TestCounts | None) -> CheckResult:
    """The sealed run's result as the agent may see it: counts, never names or output."""
    counts = ran.counts
    base = CheckResult(NAME, SUFFIX, ran.passed, seconds=ran.seconds, interrupted=ran.interrupted)
    if ran.interrupted:
        return replace(base, passed=False, summary="interrupted")
    if counts is not None and counts.failed:
        return replace(base, passed=False, summary=f"{counts.failed} of {counts.executed} failed")
    if "timed out" in ran.summary:
        return replace(base, passed=False, summary=ran.summary.split(" (")[0])
    if counts is not None and not counts.executed:
        return replace(base, passed=False, summary="no test ran")
    if counts is not None and seen is not None and counts.executed <= seen.executed:
        return replace(base, passed=False, summary=HINT_RUN)
    if not ran.passed:  # not the exit code: the code under test chooses it (a byte a DONE)
        said = ran.summary if ran.summary.startswith("cannot start") else ""
        said = said or ("no test failed, yet it did" if counts else "no test summary to count from")
        return replace(base, summary=f"failed ({said})")
    told = f"{counts.executed} passed" if counts is not None else "passed"
    return replace(base, summary=told)
