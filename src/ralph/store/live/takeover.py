"""Taking over from a run that was killed (`kill -9`: its run.json left in the store, its lock
free): its records archived for `ralph report --run`, and one line that says so and which of its
processes the new holder of the project stopped (store/live/runlock.py stops them)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ralph.errors import RalphError


def taken_over(previous: Any, stopped: list[int], root: Path) -> str | None:
    """A run was killed (its run.json left, its lock free): its records archived, and one line
    that says so and what of it was stopped; None when the last run ended as it should."""
    if not isinstance(previous, dict):
        return None
    from ralph.store.disk.workspace import Workspace
    from ralph.store.records.runs import killed_run

    ws = Workspace(root)
    kept = ""
    if killed_run(ws.worklog):
        from ralph.store.records.archive import archive_killed

        try:
            archived = archive_killed(ws)
            kept = f"; its records are archived as {archived} (ralph report --run {archived})"
        except (OSError, RalphError) as exc:  # the run goes on: its records are still there
            kept = f"; its records could not be archived: {getattr(exc, 'message', exc)}"
    if not stopped and not kept:
        return None
    pids = ", ".join(str(pid) for pid in stopped[:10]) + (", …" if len(stopped) > 10 else "")
    said = f"the last run (pid {previous.get('pid', '?')}) was killed"
    if stopped:
        n = "1 process" if len(stopped) == 1 else f"{len(stopped)} processes"
        said += f": stopped the {n} it left running (pid {pids})"
    return said + kept
