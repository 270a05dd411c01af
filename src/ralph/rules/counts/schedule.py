"""Pure spec selection: focused execution and the priority tiers of multi-spec mode."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from ralph.rules.counts.spec import Spec, sort_key
from ralph.rules.counts.state import SpecState, State

NEW, MODIFIED, UNFINISHED, VERIFYING = 1, 2, 3, 4


def tier(spec_state: SpecState, content_hash: str) -> int:
    """1 never processed, 2 content changed, 3 non-DONE or changed files, 4 DONE without changes."""
    if spec_state.last_status is None:
        return NEW
    if spec_state.last_hash != content_hash:
        return MODIFIED
    if spec_state.last_status != "DONE" or spec_state.modified_files:
        return UNFINISHED
    return VERIFYING


def priority(spec_state: SpecState, content_hash: str) -> tuple[int, int, tuple[int, str]]:
    """Sort key: tier first; tier 4 prefers the lowest counter; then discovery order."""
    t = tier(spec_state, content_hash)
    count = spec_state.done_count if t == VERIFYING else 0
    return (t, count, sort_key(spec_state.path))


def next_spec(
    specs: Sequence[Spec],
    state: State,
    current: str | None,
    *,
    switch: bool,
    new: Collection[str] = (),
) -> str | None:
    """The spec to run next, or None when every spec is at 3/3.

    - a spec newly discovered in this re-scan interrupts whatever is running;
    - otherwise stay on `current` while it needs work, unless its last rotation was DONE
      without file changes (`switch`);
    - when switching, take the best other spec by priority; the current one only when it is
      the last one that needs work.
    """
    hashes = {spec.path: spec.content_hash for spec in specs}
    needing = [s for s in state.specs if s.path in hashes and s.needs_work]
    if not needing:
        return None

    def best(rows: Sequence[SpecState]) -> str:
        return min(rows, key=lambda s: priority(s, hashes[s.path])).path

    fresh = [s for s in needing if s.path in new]
    if fresh:
        return best(fresh)
    paths = [s.path for s in needing]
    if current in paths and not switch:
        return current
    others = [s for s in needing if s.path != current]
    return best(others or needing)


def selected_done(state: State, only: Collection[str]) -> bool:
    """`--spec`: every selected spec still in the matrix is at 3/3."""
    return all(not s.needs_work for s in state.specs if s.path in only)
