"""`ralph reset`: counters and iteration back to zero (each spec keeps its last status, hash and
flag; rotation numbers go on); on request the handoffs, the history and guardrails.md too, and
the open lanes of a `--parallel` run (`--lanes`, or `--all`).

Discarding lanes throws away their agents' unmerged work, so it is asked first: on a terminal a
question, in a script `--yes`. Without either nothing at all is reset (exit code 5).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path

from ralph.errors import ExitCode
from ralph.rules.counts.matrix import reset_counters
from ralph.rules.text.printable import printable
from ralph.store.disk.workspace import GUARDRAILS_TEMPLATE, STATE_DIR, Workspace
from ralph.store.live.openlanes import OpenLane, describe, discard_lanes, open_lanes
from ralph.store.live.runlock import RunLock
from ralph.store.records.state import load_state, save_state
from ralph.store.records.worklog import append_worklog
from ralph.ui.terminal import terminal_confirm

Confirm = Callable[[str], bool]


def reset(
    root: Path,
    *,
    handoffs: bool,
    history: bool,
    guardrails: bool,
    lanes: bool = False,
    yes: bool = False,
    confirm: Confirm | None = None,
) -> int:
    """Each step printed as it is done; the exit code."""
    ws = Workspace(root)
    ws.check()
    if not (ws.dir.exists() or (ws.store / "state.json").exists()):
        print(f"nothing to reset: no {STATE_DIR}/ in {root}")
        return ExitCode.OK
    with RunLock(ws.dir) as lock:  # refused while a live run holds the lock
        for note in lock.notes:  # what taking the project put right, one line each
            print(note)
        found = open_lanes(root) if lanes else []
        if found and not yes and not _confirmed(found, confirm):
            return ExitCode.NEEDS_HUMAN
        for line in reset_project(ws, handoffs=handoffs, history=history, guardrails=guardrails):
            print(printable(line))  # a line may name a spec's files
        if lanes:
            for line in discard_lanes(root, found) if found else ["no open lanes to discard"]:
                print(printable(line))
    return ExitCode.OK


def _confirmed(found: list[OpenLane], confirm: Confirm | None) -> bool:
    n = f"{len(found)} open lane" + ("s" if len(found) > 1 else "")
    print(f"{n} of a --parallel run, their specs not verified:")
    for lane in found:
        print(f"  {printable(describe(lane))}")
    ask = confirm if confirm is not None else terminal_confirm()
    if ask is None:
        print(f"no terminal to confirm on: nothing reset; `ralph reset --lanes --yes` discards {n}")
        return False
    if not ask(f"Discard {n} (worktrees and branches)? [y/N] "):
        print("nothing reset")
        return False
    return True


def reset_project(
    ws: Workspace, *, handoffs: bool, history: bool, guardrails: bool
) -> Iterator[str]:
    from ralph.store.disk import confined
    from ralph.store.rooms.startcopy import drop_start_copy

    root = ws.root
    # Every folder and file to be replaced checked first: a link refuses the whole reset
    # before anything is deleted, rather than stopping half-way.
    for path, wanted in ((ws.handoffs, handoffs), (ws.history, history)):
        if wanted:
            confined.refuse_link(root, path)
    if guardrails:
        confined.refuse_link(root, ws.guardrails)
    if ws.state_file.exists() or (ws.store / "state.json").exists():  # .ralph/ may be gone
        state = load_state(ws.state_file)
        save_state(ws.state_file, reset_counters(state))
        # the job begins again here: `ralph report --job` tells the runs after this record
        append_worklog((ws.worklog, ws.worklog_copy), "reset")
        n = len(state.specs)
        keep = "1 spec keeps its" if n == 1 else f"{n} specs keep their"
        yield (
            f"counters and iteration reset ({keep} last status, hash and flag); rotation "
            f"numbers go on from {state.last_rotation + 1}"
        )
    else:
        yield f"no {ws.rel(ws.state_file)}: no counters to reset"
    if drop_start_copy(root):  # the next run begins afresh (store/rooms/startcopy.py)
        yield "the copy of the code as the run began deleted"
    if handoffs and ws.handoffs.exists():
        confined.remove_tree(root, ws.handoffs)
        confined.makedirs(root, ws.handoffs)
        yield "handoffs deleted"
    if history and (ws.history.exists() or ws.records.exists()):
        if ws.history.exists():
            confined.remove_tree(root, ws.history)
            confined.makedirs(root, ws.history)
        if ws.records.exists():  # ralph's own records of the logs go with their copies
            confined.remove_tree(ws.store, ws.records)
        yield "history deleted"
    if guardrails:
        confined.write_atomic(root, ws.guardrails, GUARDRAILS_TEMPLATE.encode("utf-8"))
        yield "guardrails.md reset to its template"
