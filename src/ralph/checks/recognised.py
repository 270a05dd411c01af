"""Which test files ralph recognises in a tree, and the line that says it recognises none.

The test guard (checks/testguard.py) guards the files the globs name (`tests:` in ralph.yaml
or the defaults, rules/evidence/testfiles.py), widened by the runners' own settings. A project whose
tests none of them names has no guarded test: an agent could delete or skip every one. That
is said where a person looks: at the bar (checks/bar.py), by `ralph init` and `ralph doctor`.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ralph.rules.evidence.testfiles import DEFAULT_GLOBS
from ralph.rules.text.words import plural
from ralph.store.person.testbaseline import person_ignored, runner_settings, scan
from ralph.store.repository.git import GitLock

NONE = (
    "no test file matches ralph's test patterns, so no test is guarded (the tests may grow, "
    "never shrink)"
)
SET = 'name yours with `tests:` in ralph.yaml, e.g. `tests: ["spec/**/*.js"]`'
UNRECOGNISED = f"{NONE}: {SET}"


def guarded_globs(root: Path, globs: Sequence[str] | None = None) -> tuple[str, ...]:
    """The globs (None: the defaults) widened by the runners' settings at `root` (pytest's
    python_files, jest's testMatch)."""
    base = tuple(globs) if globs is not None else DEFAULT_GLOBS
    return tuple(dict.fromkeys((*base, *runner_settings(root))))


def recognised_tests(
    root: Path, globs: Sequence[str] | None = None, lock: GitLock | None = None
) -> list[str]:
    """The test files under `root` the guard would guard, root-relative, sorted."""
    return sorted(scan(root, guarded_globs(root, globs), person_ignored(root, lock)))


def found_line(count: int) -> str:
    """What ralph says of the `count` test files it recognises."""
    if not count:
        return UNRECOGNISED
    return f"{plural(count, 'test file')} found: they may grow, never shrink"
