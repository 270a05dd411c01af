"""The counters the worklog tells, read back from its records: state.json is the truth
(saved first); the worklog is derived from it (each record after the save it tells), so a
run killed between the two leaves a worklog that stops short of the state. `told` replays
the records of the last run to what they say the counters are, and `moved` names where they
stop short, for the run that takes over to record (run/takeover.py).

Pure: records in (as store/records/worklog.py reads them), counters out."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ralph.rules.counts.state import MAX_COUNT, State

# The records that state every counter (the run's start and end, a takeover's record).
WHOLE = ("run_start", "run_end", "reconciled")


def counts(state: State) -> dict[str, int]:
    """Each spec's counter, as the records state them."""
    return {s.path: s.done_count for s in state.specs}


def told(records: Sequence[Mapping[str, Any]]) -> dict[str, int] | None:
    """The counters the records tell as the last run left them, when that run never said
    its end (it was killed); None when it did, or when no record of a run states them (a
    worklog from before the records carried counts: nothing to compare)."""
    start = next(
        (i for i in range(len(records) - 1, -1, -1) if records[i].get("event") == "run_start"),
        None,
    )
    if start is None or not isinstance(records[start].get("counts"), dict):
        return None
    view: dict[str, int] = {}
    for rec in records[start:]:
        event = rec.get("event")
        if event == "run_end":
            return None
        if event in WHOLE and isinstance(rec.get("counts"), dict):
            view = {str(k): v for k, v in rec["counts"].items() if isinstance(v, int)}
            continue
        if event == "rotation_end" and isinstance(rec.get("done_count"), int):
            view[str(rec.get("spec"))] = rec["done_count"]
        elif event == "lane_conflict":  # held at 0/3 until its agent resolves it
            view[str(rec.get("spec"))] = 0
        # a rotation's, a merge's or a failed verification's change: 3/3 back to 2/3
        for dropped in rec.get("downgraded") or ():
            view[str(dropped)] = min(view.get(str(dropped), MAX_COUNT), MAX_COUNT - 1)
    return view


def moved(view: Mapping[str, int], state: State) -> dict[str, tuple[int, int]]:
    """Each spec whose counter the records tell otherwise than the state: (told, saved)."""
    return {
        path: (view.get(path, 0), n) for path, n in counts(state).items() if view.get(path, 0) != n
    }
