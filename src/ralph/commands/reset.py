"""`ralph reset`: counters and iteration back to zero (each spec keeps its last status, hash and
flag; rotation numbers go on); on request the handoffs, the history and guardrails.md too."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from ralph.rules.matrix import reset_counters
from ralph.store.runlock import RunLock
from ralph.store.state import load_state, save_state
from ralph.store.workspace import GUARDRAILS_TEMPLATE, STATE_DIR, Workspace


def reset(root: Path, *, handoffs: bool, history: bool, guardrails: bool) -> None:
    """Each step printed as it is done."""
    for line in reset_project(root, handoffs=handoffs, history=history, guardrails=guardrails):
        print(line)


def reset_project(root: Path, *, handoffs: bool, history: bool, guardrails: bool) -> Iterator[str]:
    from ralph.store import confined

    ws = Workspace(root)
    ws.check()
    if not ws.dir.exists():
        yield f"nothing to reset: no {STATE_DIR}/ in {root}"
        return
    with RunLock(ws.dir):  # refused while a live run holds the lock
        # Every folder and file to be replaced checked first: a link refuses the whole reset
        # before anything is deleted, rather than stopping half-way.
        for path, wanted in ((ws.handoffs, handoffs), (ws.history, history)):
            if wanted:
                confined.refuse_link(root, path)
        if guardrails:
            confined.refuse_link(root, ws.guardrails)
        if ws.state_file.exists():
            state = load_state(ws.state_file)
            save_state(ws.state_file, reset_counters(state))
            n = len(state.specs)
            keep = "1 spec keeps its" if n == 1 else f"{n} specs keep their"
            yield (
                f"counters and iteration reset ({keep} last status, hash and flag); rotation "
                f"numbers go on from {state.last_rotation + 1}"
            )
        else:
            yield f"no {ws.rel(ws.state_file)}: no counters to reset"
        if handoffs and ws.handoffs.exists():
            confined.remove_tree(root, ws.handoffs)
            confined.makedirs(root, ws.handoffs)
            yield "handoffs deleted"
        if history and ws.history.exists():
            confined.remove_tree(root, ws.history)
            confined.makedirs(root, ws.history)
            yield "history deleted"
        if guardrails:
            confined.write_atomic(root, ws.guardrails, GUARDRAILS_TEMPLATE.encode("utf-8"))
            yield "guardrails.md reset to its template"
