"""What a lanes run's merges leave in the records (run/recorder.py hands them here): the
worklog's lane lines, the progress log, and for a conflict, or work left in a verified lane
that ralph cannot commit, the spec's handoff and the errors log, so the next rotation of that
spec reads what to do."""

from __future__ import annotations

from collections.abc import Callable

from ralph.rules.spec import spec_slug
from ralph.run.facts import LaneClosed, LaneConflict, LaneLeftOut, LaneMerged, LaneOpened
from ralph.store.journal import append_error, append_note, append_progress
from ralph.store.workspace import Workspace

Log = Callable[..., None]  # the recorder's worklog line: an event's name and its fields


def opened(log: Log, ws: Workspace, e: LaneOpened) -> None:
    log("lane_open", spec=e.spec, branch=e.branch, worktree=e.worktree)


def merged(log: Log, ws: Workspace, e: LaneMerged) -> None:
    log(
        "lane_merge",
        spec=e.spec,
        branch=e.branch,
        into=e.into,
        changed=e.changed,
        downgraded=list(e.downgraded),
        closes=e.closes,
    )
    what = "merged" if e.closes else "work merged (the lane goes on)"
    append_progress(ws.progress, f"{e.spec}: lane {e.branch} {what} into {e.into}")


def conflict(log: Log, ws: Workspace, e: LaneConflict) -> None:
    log(
        "lane_conflict",
        spec=e.spec,
        branch=e.branch,
        into=e.into,
        files=list(e.files),
        others=list(e.others),
        during=e.during,
    )
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


def left_out(log: Log, ws: Workspace, e: LaneLeftOut) -> None:
    log("lane_left_out", spec=e.spec, branch=e.branch, into=e.into, uncommitted=list(e.uncommitted))
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


def closed(log: Log, ws: Workspace, e: LaneClosed) -> None:
    log("lane_close", spec=e.spec, branch=e.branch, removed=e.removed, reason=e.reason)
