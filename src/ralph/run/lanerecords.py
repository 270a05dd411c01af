"""What a lanes run's merges leave in the records besides their worklog lines (run/recorder.py
writes those from the facts' fields and hands the rest here): the progress log, and for a
conflict, or work left in a verified lane that ralph cannot commit, the spec's handoff and the
errors log, so the next rotation of that spec reads what to do."""

from __future__ import annotations

from ralph.rules.counts.spec import spec_slug
from ralph.run.facts import LaneConflict, LaneLeftOut, LaneMerged
from ralph.store.disk.workspace import Workspace
from ralph.store.records.journal import append_error, append_note, append_progress


def merged(ws: Workspace, e: LaneMerged) -> None:
    what = "merged" if e.closes else "work merged (the lane goes on)"
    append_progress(ws.progress, f"{e.spec}: lane {e.branch} {what} into {e.into}")


def conflict(ws: Workspace, e: LaneConflict) -> None:
    what = (
        f"ralph could not merge this spec's lane ({e.branch}) into {e.into}"
        if e.during == "merge"
        else f"ralph could not bring {e.into} into this spec's lane ({e.branch})"
    )
    others = f" with the work of {', '.join(e.others)}" if e.others else ""
    append_note(
        ws.handoff(spec_slug(e.spec)),
        f"{what}: conflicts in {', '.join(e.files)}{others}. In your working folder run "
        f"`git merge {e.into}`, resolve every conflict so that both specs still hold, "
        "commit the merge, and check this spec again. Nothing was merged for you.",
    )
    append_error(ws.errors_log, f"{e.spec}: merge conflict in {', '.join(e.files)}")


def left_out(ws: Workspace, e: LaneLeftOut) -> None:
    if not e.uncommitted:  # commits not merged: ralph merges them when the spec is verified
        return
    files = ", ".join(e.uncommitted)
    append_note(
        ws.handoff(spec_slug(e.spec)),
        f"This spec went back to 2/3: your working folder holds work ralph cannot commit "
        f"(an unresolved merge?) in {files}, so it is not in {e.into}. In your working folder "
        "run `git status`, then resolve it (settle every conflict and commit the merge) or "
        "remove it (`git merge --abort`, or restore the files), and check this spec again.",
    )
    append_error(ws.errors_log, f"{e.spec}: work left uncommitted in its lane: {files}")
