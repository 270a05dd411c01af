"""The one place a rotation's outcome joins the run's state, whichever scheduler ran it: the
spec's counter and status, its rotation count, what the gate keeps of it, the usage (the
agent's and any judge's). The schedulers call this; nothing else writes a rotation's result."""

from __future__ import annotations

from dataclasses import replace

from ralph.rules.caps import count_rotation
from ralph.rules.matrix import record_rotation
from ralph.rules.state import State
from ralph.rules.usage import record_usage
from ralph.run.accounting import account
from ralph.run.turn import Outcome


def fold(state: State, outcome: Outcome) -> tuple[State, tuple[str, ...]]:
    """The state after `outcome`, and the other specs it sent from 3/3 back to 2/3.

    A lane's rotation changed files in its own worktree: the other specs hear of it only
    through its merge, so in a lane no other spec drops."""
    path, changed = outcome.spec, outcome.changed
    before = state
    state, downgraded = record_rotation(state, path, outcome.signal, changed, outcome.spec_hash)
    if outcome.place.lane is not None and downgraded:
        state, downgraded = _only(state, before, path), ()
    state = count_rotation(state, path, outcome.mode)
    state = outcome.track(state)
    for judged in outcome.judged:  # a semantic check's judge counts like any call
        state = record_usage(state, judged.spec, judged.agent, judged.usage)
    state = account(state, path, outcome.agent, outcome.result, changed)
    return state, downgraded


def _only(state: State, before: State, path: str) -> State:
    """`state` with the other specs' rows as they were `before`."""
    rows = tuple(r if r.path == path else (before.get(r.path) or r) for r in state.specs)
    return replace(state, specs=rows)
