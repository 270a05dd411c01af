"""Pure updates of the spec matrix: the 0/3-3/3 counter rules, propagation, re-scans, reset."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from ralph.rules.counts.breaker import Breaker
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import MAX_COUNT, FinalVerification, SpecState, State

DONE = "DONE"


def next_count(count: int, signal: str, changed: bool) -> int:
    """The counter rules of verification-counter-behavior, for the spec that just ran.

    DONE with changes -> 1; DONE without changes -> +1 (at most 3);
    anything else with changes -> 0; anything else without changes -> unchanged.
    """
    if signal == DONE:
        return 1 if changed else min(count + 1, MAX_COUNT)
    return 0 if changed else count


def downgrade_verified(
    state: State, *, except_path: str | None = None
) -> tuple[State, tuple[str, ...]]:
    """Tracked files changed: every other spec at 3/3 drops to 2/3, nothing else moves."""
    dropped: list[str] = []
    specs: list[SpecState] = []
    for row in state.specs:
        if row.path != except_path and row.done_count == MAX_COUNT:
            dropped.append(row.path)
            row = replace(row, done_count=MAX_COUNT - 1)  # noqa: PLW2901 -- the updated row
        specs.append(row)
    return replace(state, specs=tuple(specs)), tuple(dropped)


def record_rotation(
    state: State, path: str, signal: str, changed: bool, spec_hash: str | None
) -> tuple[State, tuple[str, ...]]:
    """Apply one processed rotation of `path`; returns the new state and the specs downgraded.

    Only the processed spec's own state (status, hash, modified flag) is updated; the others
    keep theirs and lose at most their full verification (3/3 -> 2/3) when files changed.
    """
    spec = state.get(path)
    downgraded: tuple[str, ...] = ()
    if changed:
        state, downgraded = downgrade_verified(state, except_path=path)
    if spec is None:  # the agent deleted its own spec: nothing left to record for it
        return state, downgraded
    updated = replace(
        spec,
        done_count=next_count(spec.done_count, signal, changed),
        last_status=signal,
        last_hash=spec_hash if spec_hash is not None else spec.last_hash,
        modified_files=changed,
        rotations=spec.rotations + 1,
    )
    # A final verification speaks for the tree it saw; any later rotation makes it stale.
    state = replace(state, final=replace(state.final, passed=False))
    return state.with_spec(updated), downgraded


@dataclass(frozen=True)
class Rescan:
    state: State
    added: tuple[str, ...]  # specs not in the matrix before
    removed: tuple[str, ...]
    modified: tuple[str, ...]  # content changed since processed; this re-scan reset it to 0/3


def reconcile(state: State, specs: Sequence[Spec]) -> Rescan:
    """Bring the matrix in line with the specs on disk (in discovery order).

    New specs enter at 0/3 with no status; removed ones leave the matrix; a processed spec
    whose content hash changed goes back to 0/3 (its requirements changed) and keeps its old
    hash, so that it stays "modified" until a rotation processes it.
    """
    added: list[str] = []
    modified: list[str] = []
    rows: list[SpecState] = []
    for spec in specs:
        old = state.get(spec.path)
        if old is None:
            added.append(spec.path)
            rows.append(SpecState(path=spec.path))
            continue
        if old.last_hash is not None and old.last_hash != spec.content_hash and old.done_count:
            modified.append(spec.path)
            # new requirements: an earlier "accept" or "go on without verification" is void
            old = replace(old, done_count=0, override=None)
        rows.append(old)
    present = {spec.path for spec in specs}
    removed = tuple(s.path for s in state.specs if s.path not in present)
    current = state.current_spec if state.current_spec in present else None
    new_state = replace(state, specs=tuple(rows), current_spec=current)
    return Rescan(new_state, tuple(added), removed, tuple(modified))


def reset_counters(state: State) -> State:
    """`ralph reset`: counters and iteration back to zero; last status, hash and flag are kept.

    The rotation numbers go on (`last_rotation` is kept): a number names one rotation for the
    life of the project, so the history never lists two rotations under one number.

    The per-mode rotation counts go back to zero too, so the front matter's iteration caps
    start over (a spec blocked by one may run again), and front matter an agent wrote is
    accepted.
    The final verification's record and the circuit breakers (the run's, each lane's) start
    over too: a reset is the user's explicit decision to start the verification from scratch.
    """
    return replace(
        state,
        iteration=0,
        max_iteration=None,
        current_spec=None,
        specs=tuple(
            replace(
                s,
                done_count=0,
                implement_rotations=0,
                review_rotations=0,
                blocked=None,
                agent_front_matter=None,  # the person running reset accepts the front matter
                override=None,
            )
            for s in state.specs
        ),
        final=FinalVerification(),
        breaker=Breaker(),
        lane_breakers=(),
    )
