"""The runs the worklog tells: which records are one run's (a run continued after a kill is one
run with the part that was killed), which are the job's (every run since the last `ralph
reset`), and the killed run a run that takes over would continue."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ralph.store.records.worklog import read_worklog


def runs(records: Sequence[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The runs `records` tell, in order, each from its `run_start` on (what comes before the
    first is no run's). A run that took over a killed run with `--continue` (its `run_start`
    says `continues`) is one run with it: its records join the killed run's, unless a
    `ralph reset` came between (the job began again there)."""
    found: list[list[dict[str, Any]]] = []
    joins = False  # may a run that continues join the last run?
    for rec in records:
        kind = rec.get("event")
        if kind == "reset":
            joins = False
            continue
        if kind == "run_start" and not (joins and rec.get("continues") is True):
            found.append([])
        if kind == "run_start":
            joins = True
        if found:
            found[-1].append(rec)
    return found


def since_reset(records: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The records of the job: every run since the last `ralph reset` (all of them when none)."""
    resets = [n for n, rec in enumerate(records) if rec.get("event") == "reset"]
    return list(records[resets[-1] + 1 :] if resets else records)


def killed_run(path: Path) -> list[dict[str, Any]]:
    """The records of the worklog's last run when it never recorded its end (it was killed):
    what a run that takes over continues; empty when the last run ended (or there is none)."""
    found = runs(since_reset(read_worklog(path)))  # a reset ended it, killed or not
    last = found[-1] if found else []
    return [] if any(rec.get("event") == "run_end" for rec in last) else last
