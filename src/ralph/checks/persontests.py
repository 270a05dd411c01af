"""The person's tests against the agent's code: what a second check run puts in its room.

A minimal placeholder (branch `room`): branch `persontests` replaces it with the real rules
(test configuration, the tests the agent added). `person_overlay` says, for a clean room
(store/room.py), which files to place as the person last left them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from ralph.checks.testguard import TestGuard
from ralph.store.testbaseline import digest, scan


def person_overlay(
    root: Path, tests: TestGuard, commands: Sequence[str]
) -> dict[str, bytes | None]:
    """Root-relative path -> the baseline's bytes for every baseline test file whose text
    differs now (or is gone), None for a test file not in the baseline; {} when the tests are
    as the person left them (no second run)."""
    store = tests.store
    if not store.exists or not commands:
        return {}
    base = store.baseline()
    now = scan(root, tests.globs)
    changed = {p for p, sha in base.items() if p not in now or digest(now[p]) != sha}
    if not changed and set(now) <= set(base):
        return {}
    texts = store.baseline_texts()
    out: dict[str, bytes | None] = {
        p: texts[p].encode("utf-8", "surrogatepass") for p in sorted(changed)
    }
    out.update((p, None) for p in sorted(set(now) - set(base)))
    return out
