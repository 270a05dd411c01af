"""Pure rules of lanes: a lane's branch name, what a merge does to the counters, and how a
lane's rotation joins the run's state. The lanes' registry is rules/counts/laneregistry.py."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Collection
from dataclasses import replace

from ralph.rules.counts.schedule import priority
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import MAX_COUNT, SpecState, State, Tally
from ralph.rules.counts.usage import merge, minus

BRANCH_PREFIX = "ralph/"


# A lane's name: lower-case letters, digits, `_` and `-` only, then the spec path's hash. No
# dot, slash, space or `@` can reach it, so it is a valid git branch component for any legal
# spec file name (no `..`, no `.lock` ending, no `@{`, no leading `-` or `.`), and a plain
# folder name on every platform.
_LANE_NAME = re.compile(r"[a-z0-9_]([a-z0-9_-]{0,38}[a-z0-9_])?-[0-9a-f]{6}")


def lane_name(spec: str) -> str:
    """`specs/api.spec.md` -> `api-3f9a1c`: readable, and unique per spec path."""
    stem = spec.rsplit("/", 1)[-1]
    for suffix in (".spec.md", ".md"):
        if stem.endswith(suffix):
            stem = stem[: -len(suffix)]
            break
    stem = re.sub(r"[^a-z0-9_]+", "-", stem.lower())[:40].strip("-") or "spec"
    digest = hashlib.sha256(spec.encode("utf-8", "surrogateescape")).hexdigest()[:6]
    return f"{stem}-{digest}"


def is_lane_name(name: str) -> bool:
    """A name `lane_name` can give: a folder under `.ralph/worktrees/` with any other name is
    not a lane of ralph's."""
    return _LANE_NAME.fullmatch(name) is not None


def lane_branch(spec: str) -> str:
    """The lane's branch: `ralph/<name>-<hash6>`."""
    return BRANCH_PREFIX + lane_name(spec)


def shares(signal: str, done_count: int) -> bool:
    """A lane's rotation whose work reaches the user's branch at once, before its spec is at
    3/3: a DONE that counted 1/3 (the checks passed on work done since its spec was last
    reset), so that the other lanes review their own specs on it, as every rotation of
    one-spec mode works on the others' work. Its spec stays at 1/3; a spec merged at 3/3
    drops to 2/3 as for any change (after_merge). At 2/3 and 3/3 the lane has no work of its
    own that is not shared: any change would have reset it to 1/3 or 0/3."""
    return signal == "DONE" and done_count == 1


def after_merge(
    state: State, path: str, *, changed: bool, same_tree: bool, queued: Collection[str] = ()
) -> tuple[State, tuple[str, ...]]:
    """A lane of `path` was merged into the integration branch.

    A merge that changed files is a change like any other: every other spec at 3/3 drops to
    2/3, except those queued to merge (their own merge judges them by the same rule). The
    merged spec itself stays at 3/3 only when the merged tree is the tree its lane verified.
    Returns the new state and the specs dropped (the merged one included when it dropped).
    """
    dropped: list[str] = []
    rows: list[SpecState] = []
    for row in state.specs:
        drop = row.done_count == MAX_COUNT and (
            (row.path == path and not same_tree)
            or (row.path != path and changed and row.path not in queued)
        )
        if drop:
            dropped.append(row.path)
            row = replace(row, done_count=MAX_COUNT - 1)  # noqa: PLW2901 -- the updated row
        rows.append(row)
    if changed:  # the final verification spoke for a tree that is gone
        state = replace(state, final=replace(state.final, passed=False))
    return replace(state, specs=tuple(rows)), tuple(dropped)


def absorb(main: State, before: State, after: State, path: str) -> State:
    """The run's state once a lane's own copy went from `before` to `after`: the lane's spec
    row, what it spent, the rotation numbers it took and a stale final verification. The
    other specs' rows are the run's own: a lane's changes reach them only through a merge."""
    row = after.get(path)
    state = main if row is None or main.get(path) is None else main.with_spec(row)
    agents = dict(state.agent_usage)
    for name, tally in after.agent_usage:
        spent = minus(tally, dict(before.agent_usage).get(name, Tally()))
        agents[name] = merge(agents.get(name, Tally()), spent)
    final = state.final
    if after.final.passed != before.final.passed:
        final = replace(final, passed=after.final.passed and final.passed)
    return replace(
        state,
        iteration=max(state.iteration, after.iteration),
        last_rotation=max(state.last_rotation, after.last_rotation),
        usage=merge(state.usage, minus(after.usage, before.usage)),
        agent_usage=tuple(agents.items()),
        final=final,
    )


def hold(state: State, path: str) -> State:
    """A lane that cannot merge (a conflict its agent has not resolved): its spec starts over
    at 0/3, and stays there while the conflict stands; its resolution is a change like any."""
    row = state.get(path)
    if row is None or row.done_count == 0:
        return state
    return state.with_spec(replace(row, done_count=0))


def drop_to_review(state: State, path: str) -> State:
    """Work found in a lane that ralph did not see made: its spec leaves 3/3."""
    row = state.get(path)
    if row is None or row.done_count < MAX_COUNT:
        return state
    return state.with_spec(replace(row, done_count=MAX_COUNT - 1))


def candidates(state: State, runnable: list[Spec], open_: set[str], paused: set[str]) -> list[Spec]:
    """The specs among `runnable` a lane starts next, best first: those that need work and
    whose lane's own breaker has not paused it (rules/counts/lanebreakers.py). While lanes are open
    (`open_`, by spec), a merged spec that a later merge dropped to 2/3 waits for them: each
    of their merges would drop it again."""
    rows = {r.path: r for r in state.specs}
    waiting = [s for s in runnable if s.path in rows and rows[s.path].needs_work]
    waiting = [s for s in waiting if s.path not in paused]
    if open_:
        waiting = [s for s in waiting if s.path in open_ or rows[s.path].done_count < MAX_COUNT - 1]
    return sorted(waiting, key=lambda s: priority(rows[s.path], s.content_hash))
