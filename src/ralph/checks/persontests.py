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
    differs now (or is gone); {} when they are as the person left them (no second run). The
    tests the agent added stay: tests may grow."""
    store = tests.store
    if not store.exists or not commands:
        return {}
    base = store.baseline()
    now = scan(root, tests.globs)
    changed = sorted(p for p, sha in base.items() if p not in now or digest(now[p]) != sha)
    if not changed:
        return {}
    texts = store.baseline_texts()
    return {p: texts[p].encode("utf-8", "surrogatepass") for p in changed}
