"""Tests may grow, never shrink, without a person's say.

The baseline is the tests as ralph first recorded them or as a person last accepted or edited
them (store/person/testbaseline.py). A DONE is refused while the tests on disk are weaker than the
baseline (rules/evidence/weakening.py): until an agent restores them or a person accepts the change
(`ralph accept`, or the escalation's Accept). A spec whose front matter says
`tests: {may_change: true}` is not guarded, and what its rotations change of the tests becomes
the baseline.
"""

from __future__ import annotations

import contextlib
import difflib
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.checks.acceptance import Pending, Scope
from ralph.checks.recognised import guarded_globs
from ralph.checks.testconfig import ConfigGuard
from ralph.rules.counts.state import State
from ralph.rules.evidence.testfiles import is_test
from ralph.rules.evidence.weakening import Finding, weakened
from ralph.store.person.testbaseline import (
    TestStore,
    digest,
    hashes,
    observe,
    person_edits,
    person_ignored,
    read,
    scan,
)
from ralph.store.repository.git import GitLock

if TYPE_CHECKING:
    from ralph.store.person.config import RalphConfig

ACCEPT_HINT = "restore the tests, or a person accepts the change with `ralph accept`"
SHOWN = 5  # findings named in a refusal


class TestGuard:
    def __init__(
        self,
        root: Path,
        state_dir: Path,
        globs: Sequence[str] | None = None,
        commands: Sequence[str] = (),
        lock: GitLock | None = None,
        project: RalphConfig | None = None,  # the run's ralph.yaml; None: the accepted one
    ):
        self.root = root
        self.project = project
        self.store = TestStore(state_dir)
        self.globs = guarded_globs(root, globs)
        self.ignored = person_ignored(root, lock)  # what the person's ignore rules leave out
        # the test configuration, recorded and taken as the tests are
        self.config = ConfigGuard(root, state_dir, self.globs, commands, project)

    def start(self) -> tuple[list[str], bool]:
        """When a run starts: record the baseline the first time; afterwards, test files that
        changed while ralph was not running are a person's edits and become the baseline.
        Returns those paths, and whether they were taken: after a run that ended without
        finishing (killed mid-rotation) nobody can tell whose they are, so they wait for a
        person's say like an agent's."""
        now = scan(self.root, self.globs, self.ignored)
        unclean = self.store.running
        self.store.mark_running(True)
        config = self.config.start(take=not unclean)
        if not self.store.exists:
            self.store.save_baseline(now)
            self.store.save_seen(hashes(now))
            return config, True
        edited = sorted({*person_edits(self.store.seen(), hashes(now)), *config})
        if edited and not unclean:
            self.store.take(edited, now)
        self.store.save_seen(hashes(now))
        return edited, not unclean

    def finish(self) -> None:
        """The run ended (however, short of being killed): what is on disk now is what ralph
        saw, whoever changed it during the run (an edit the snapshot could not tell is not
        taken for a person's at the next start)."""
        with contextlib.suppress(OSError):  # never hides why the run ended
            self.store.save_seen(hashes(scan(self.root, self.globs, self.ignored)))
            self.config.finish()
            self.store.mark_running(False)

    def after_rotation(self, changed: Iterable[str], *, may_change: bool) -> None:
        """What a rotation changed of the tests is what ralph has seen; with `may_change`
        (the spec allows it) it is the baseline too. No cost when no test file changed."""
        changed = list(changed)
        self.config.after_rotation(changed, may_change=may_change)
        if any(p.startswith("(") for p in changed):  # "everything may have changed"
            paths = sorted(set(scan(self.root, self.globs, self.ignored)) | set(self.store.seen()))
        else:
            seen = self.store.seen()
            paths = [p for p in changed if p in seen or is_test(p, self.globs) or p.endswith(".rs")]
        observe(self.store, self.root, paths, may_change=may_change)

    def findings(self, globs: Sequence[str] | None = None, *, full: bool = False) -> list[Finding]:
        """How the tests now are weaker than the baseline ([] before any baseline), for the
        files `globs` names (None: all). A DONE reads only the test files ralph knows (the
        baseline's and those seen since) and walks the project only once one of the
        baseline's changed (a case may have moved to a new file); `full` always walks. Only
        the files that differ from the baseline are parsed: cheap when nothing changed."""
        if not self.store.exists:
            return []
        base = self.store.baseline()
        now = self._known(base)
        if full or any(p not in now or digest(now[p]) != sha for p, sha in base.items()):
            now = scan(self.root, self.globs, self.ignored)
        current = hashes(now)
        changed = {p for p in base if current.get(p) != base[p]}
        if not changed and set(current) <= set(base):
            return []
        old = {p: t for p, t in self.store.baseline_texts().items() if p in changed}
        new = {p: t for p, t in now.items() if base.get(p) != current[p]}
        found = weakened(old, new)
        return [f for f in found if globs is None or is_test(f.path, globs)]

    def _known(self, base: dict[str, str]) -> dict[str, str]:
        out = {}
        for p in sorted(set(base) | set(self.store.seen())):
            text = read(self.root, p)
            if text is not None:
                out[p] = text
        return out

    def widen(self, globs: Iterable[str], commands: Iterable[str] = ()) -> None:
        """Guard these files too (the globs specs' front matter names), and the runner
        scripts of these test commands."""
        self.globs = tuple(dict.fromkeys((*self.globs, *globs)))
        self.config.globs = self.globs
        self.config.commands = tuple(dict.fromkeys((*self.config.commands, *commands)))

    def diff(self, paths: Iterable[str]) -> list[str]:
        """The baseline of `paths` against the files now, as unified diff lines."""
        base = self.store.baseline_texts()
        out: list[str] = []
        for p in sorted(paths):
            now = read(self.root, p)
            out += difflib.unified_diff(
                base.get(p, "").splitlines(),
                (now or "").splitlines(),
                f"{p} (accepted)",
                f"{p} (now)" if now is not None else f"{p} (deleted)",
                n=1,
                lineterm="",
            )
        return out

    def accept(self) -> None:
        """A person's say: the tests as they are now are the baseline."""
        now = scan(self.root, self.globs, self.ignored)
        self.store.save_baseline(now)
        self.store.save_seen(hashes(now))


def refusal(found: Sequence[Finding]) -> tuple[str, ...]:
    """The reasons of a DONE refused for weakened tests; the first says what a person can do."""
    head = f"the tests were weakened ({ACCEPT_HINT}): {found[0]}"
    rest = [str(f) for f in found[1:SHOWN]]
    if len(found) > SHOWN:
        rest.append(f"and {len(found) - SHOWN} more changes to the tests")
    return (head, *rest)


class TestAcceptor:
    """`ralph accept` for the tests: shows how they were weakened, makes them the baseline."""

    kind = "tests"

    def pending(self, scope: Scope, state: State) -> list[Pending]:
        guard = TestGuard(scope.root, scope.state_dir, scope.test_globs, lock=scope.git)
        found = guard.findings(full=True)
        if not found:
            return []
        files = sorted({f.path for f in found})
        summary = f"the tests, weaker than a person last left them: {', '.join(files)}"
        lines = (*(str(f) for f in found), "", *guard.diff(files))
        return [Pending(self.kind, None, summary, lines)]

    def accept(self, scope: Scope, state: State, items: Sequence[Pending]) -> State:
        TestGuard(scope.root, scope.state_dir, scope.test_globs, lock=scope.git).accept()
        return state
