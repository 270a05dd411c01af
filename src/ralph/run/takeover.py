"""A run that takes over from a killed one reconciles ralph's two records of the counters.

state.json (ralph's own copy in its private store) is the truth: a rotation's outcome is
saved there first, and the worklog's records of it follow (run/ledger.py). A kill between the
two leaves a worklog that stops short of the state, never ahead of it: a counted DONE is never
lost, and never invented by a kill. The run that takes over records the state's counters in
the worklog (`reconciled`) and says so in one line, so the records explain every counter."""

from __future__ import annotations

from ralph.rules.counts.state import State
from ralph.rules.counts.toldcounts import counts, moved, told
from ralph.run.context import Shared
from ralph.run.events import Notice
from ralph.run.facts import Reconciled
from ralph.store.records.worklog import last_run


def take_over(run: Shared, state: State) -> None:
    """Before the run moves anything: where the last run's records stop short of `state`,
    the state's counters recorded and said."""
    view = told(last_run(run.ws.worklog))
    if view is None:
        return
    found = moved(view, state)
    if not found:
        return
    run.emit(Reconciled(counts(state), {path: was for path, (was, _) in found.items()}))
    shown = ", ".join(f"{path} {was}/3 -> {n}/3" for path, (was, n) in found.items())
    run.emit(
        Notice(
            "warning",
            "the last run was killed before its records caught up with state.json (the "
            f"truth): the worklog now records the state's counters ({shown})",
        )
    )
