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
    import shutil

    ws = Workspace(root)
    ws.check()
    own = ws.store / "state.json"  # ralph's own copy: .ralph/ may have been deleted
    if not (ws.dir.exists() or own.exists()):
        yield f"nothing to reset: no {STATE_DIR}/ in {root}"
        return
    with RunLock(ws.dir) as lock:  # refused while a live run holds the lock
        yield from lock.notes  # what taking the project put right, one line each
        if ws.state_file.exists() or own.exists():
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
            shutil.rmtree(ws.handoffs)
            ws.handoffs.mkdir()
            yield "handoffs deleted"
        if history and ws.history.exists():
            shutil.rmtree(ws.history)
            ws.history.mkdir()
            yield "history deleted"
        if guardrails:
            ws.guardrails.write_text(GUARDRAILS_TEMPLATE, encoding="utf-8")
            yield "guardrails.md reset to its template"
