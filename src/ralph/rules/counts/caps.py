"""Pure iteration caps from the front matter: a hard stop for one spec, never an endless loop.

`max_iterations` in a spec's front matter caps that spec's rotations; a role's `max_iterations`
caps the rotations in which that role's criteria apply: `coder` the implementing (IMPLEMENT)
rotations, `reviewer` the reviewing (REVIEW) ones, `tester` and `qa` all of them. A spec at its
cap is *blocked*: ralph goes on with the other specs, and the run ends with exit 3 (max
iterations) instead of "verified". Counts run from the last `ralph reset`, across runs; raising
the cap in the front matter unblocks the spec.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace

from ralph.rules.counts.state import SpecState, State

ROLE_MODES = {"coder": "IMPLEMENT", "reviewer": "REVIEW", "tester": None, "qa": None}


@dataclass(frozen=True)
class Caps:
    """A spec's caps as its front matter states them (`SpecMeta.caps`)."""

    spec: int | None = None  # max_iterations
    roles: Mapping[str, int] = field(default_factory=dict)  # role -> its max_iterations


def next_mode(row: SpecState) -> str:
    return "IMPLEMENT" if row.done_count == 0 else "REVIEW"


def cap_reason(caps: Caps | None, row: SpecState) -> str | None:
    """Why `row` may not run another rotation, or None."""
    if caps is None:
        return None
    total = row.implement_rotations + row.review_rotations
    if caps.spec is not None and total >= caps.spec:
        return f"max_iterations {caps.spec} reached ({_rotations(total)})"
    mode = next_mode(row)
    for name, role_mode in ROLE_MODES.items():
        cap = caps.roles.get(name)
        if cap is None:
            continue
        if role_mode is None:
            used = total
        elif role_mode == mode:
            used = row.implement_rotations if mode == "IMPLEMENT" else row.review_rotations
        else:
            continue
        if used >= cap:
            what = _rotations(used, role_mode)
            return f"{name}.max_iterations {cap} reached ({what})"
    return None


def capped(caps: Mapping[str, Caps | None], state: State) -> dict[str, str]:
    """The specs (path -> their caps) that hit an iteration cap, with the reason."""
    out: dict[str, str] = {}
    for path, spec_caps in caps.items():
        row = state.get(path)
        reason = cap_reason(spec_caps, row) if row is not None and row.needs_work else None
        if reason is not None:
            out[path] = reason
    return out


def _rotations(n: int, mode: str | None = None) -> str:
    kind = f"{mode} rotation" if mode else "rotation"
    return f"{n} {kind}" + ("" if n == 1 else "s")


def count_rotation(state: State, path: str, mode: str) -> State:
    """One more IMPLEMENT or REVIEW rotation recorded for `path`."""
    row = state.get(path)
    if row is None:
        return state
    if mode == "IMPLEMENT":
        row = replace(row, implement_rotations=row.implement_rotations + 1)
    elif mode == "REVIEW":
        row = replace(row, review_rotations=row.review_rotations + 1)
    return state.with_spec(row)


def mark_blocked(state: State, blocked: Mapping[str, str]) -> State:
    """Record which specs are blocked (and unblock the others), for `ralph status`."""
    specs = tuple(
        s if s.blocked == blocked.get(s.path) else replace(s, blocked=blocked.get(s.path))
        for s in state.specs
    )
    return replace(state, specs=specs)
