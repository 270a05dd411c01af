"""What `init`, `status` and `reset` do, below the option parsing (`run` is in runner.py)."""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ralph.errors import LockError, SpecError
from ralph.rules.matrix import reconcile, reset_counters
from ralph.rules.state import State, tally_to_json
from ralph.specs.discovery import SEARCHED, find_spec_paths, read_spec
from ralph.store.runlock import RunInfo, RunLock, read_run
from ralph.store.state import load_state, save_state
from ralph.store.workspace import (
    GUARDRAILS_TEMPLATE,
    PROMPT_TEMPLATE,
    STATE_DIR,
    Workspace,
    ensure_gitignored,
)


def init_project(root: Path, *, force: bool) -> Iterator[str]:
    import shutil

    ws = Workspace(root)
    ws.check()
    if ws.state_file.exists() and not force:
        raise LockError(
            f"{ws.rel(ws.dir)}/ already exists in {root}",
            "ralph init --force re-creates it (state, handoffs and history are lost; "
            "specs under .ralph/specs/ are kept)",
        )
    with RunLock(ws.dir):  # never clobber the state of a live run
        if force:
            for entry in ws.dir.iterdir():
                # .ralph/specs/ holds the user's specs; run.lock is held right now
                if entry.name in ("specs", "run.lock", "run.json"):
                    continue
                if entry.is_dir() and not entry.is_symlink():
                    shutil.rmtree(entry)
                else:
                    entry.unlink()
        ws.ensure()
        save_state(ws.state_file, State())
    yield f"created {ws.rel(ws.dir)}/ (state.json, guardrails.md, handoffs/, history/)"
    if not find_spec_paths(root):
        (root / "PROMPT.md").write_text(PROMPT_TEMPLATE, encoding="utf-8")
        yield "created PROMPT.md: describe what you want built there"
    if ensure_gitignored(root):
        yield "added .ralph/ to .gitignore"
    yield "next: ralph run --agent-command 'YOUR AGENT'  (or --agent demo to watch the loop)"


def load_status(root: Path) -> tuple[State, RunInfo | None]:
    """The saved matrix seen against the specs on disk now, and the live run if any."""
    ws = Workspace(root)
    ws.check()
    state = load_state(ws.state_file)
    specs = [s for s in (read_spec(root, p) for p in find_spec_paths(root)) if s is not None]
    if not specs and not state.specs:
        raise SpecError(f"no specs found in {root}", f"create one ({SEARCHED})")
    return reconcile(state, specs).state, read_run(ws.dir)


def status_data(state: State, live: RunInfo | None) -> dict[str, Any]:
    """`status --json`: the contract's keys, and a few more."""
    data: dict[str, Any] = {
        "iteration": state.iteration,
        "max_iterations": state.max_iteration,
        "running": live is not None,
        "complete": state.complete,
        "current_spec": state.current_spec,
        "specs": [
            {
                "path": s.path,
                "done_count": s.done_count,
                "last_status": s.last_status,
                "modified_files": s.modified_files,
                "last_hash": s.last_hash,
                "needs_work": s.needs_work,
                "rotations": s.rotations,
                "blocked": s.blocked,  # why it stopped at an iteration cap (front matter)
                "usage": tally_to_json(s.usage),
                "last_changed_by": s.last_changed_by,
                "override": s.override,
            }
            for s in state.specs
        ],
        "usage": tally_to_json(state.usage),  # every rotation since the state was created
        "agents": {name: tally_to_json(t) for name, t in state.agent_usage},
        "final_verification": {
            "passed": state.final.passed,
            "failures": state.final.failures,
            "bypassed": state.final.bypassed,
            "accepted": state.final.accepted,
            "last_failure": state.final.last_failure,
        },
        "breaker": {
            "state": state.breaker.state,
            "failures": state.breaker.failures,
            "opened_at": state.breaker.opened_at,
        },
    }
    if live is not None:
        data["run"] = live.data
    return data


def worklog_tail(path: Path, count: int) -> list[dict[str, Any]]:
    """The last `count` events of the worklog; a damaged line is shown as such, not fatal."""
    from collections import deque

    try:
        with path.open(encoding="utf-8", errors="replace") as f:
            lines = deque((line for line in f if line.strip()), maxlen=count)
    except FileNotFoundError:
        return []
    events: list[dict[str, Any]] = []
    for line in lines:
        try:
            event = json.loads(line)
        except ValueError:
            event = None
        events.append(event if isinstance(event, dict) else {"event": "(unreadable line)"})
    return events


def format_event(event: dict[str, Any]) -> str:
    import time

    ts = event.get("ts")
    when = (
        time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))
        if isinstance(ts, (int, float))
        else "?"
    )
    rest = " ".join(
        f"{k}={json.dumps(v) if not isinstance(v, str) else v}"
        for k, v in event.items()
        if k not in ("ts", "event")
    )
    return f"{when} {event.get('event', '?')} {rest}".rstrip()


def print_status(
    root: Path, *, as_json: bool, no_color: bool = False, log: int | None = None
) -> None:
    state, live = load_status(root)
    events = worklog_tail(Workspace(root).worklog, log) if log else None
    if as_json:
        data = status_data(state, live)
        if events is not None:
            data["worklog"] = events
        print(json.dumps(data))
        return
    from ralph.ui import statustable as statusview

    args: dict[str, Any] = {
        "iteration": state.iteration,
        "max_iteration": state.max_iteration,
        "running": live is not None,
        "complete": state.complete,
        "usage": state.usage,
        "agents": state.agent_usage,
    }
    if sys.stdout.isatty():
        from rich.console import Console

        # Rich itself honours NO_COLOR; --no-color says the same from the command line.
        Console(no_color=True if no_color else None).print(
            statusview.render_status_table(state.specs, **args)
        )
    else:
        print(statusview.render_status_plain(state.specs, **args), end="")
    for s in state.specs:
        if s.blocked:
            print(f"blocked: {s.path}: {s.blocked} (raise the cap or run `ralph reset`)")
    if events is not None:
        print(f"worklog (last {len(events)} of .ralph/worklog.jsonl):")
        for event in events:
            print("  " + format_event(event))


def reset_project(root: Path, *, handoffs: bool, history: bool, guardrails: bool) -> Iterator[str]:
    import shutil

    ws = Workspace(root)
    ws.check()
    if not ws.dir.exists():
        yield f"nothing to reset: no {STATE_DIR}/ in {root}"
        return
    with RunLock(ws.dir):  # refused while a live run holds the lock
        if ws.state_file.exists():
            state = load_state(ws.state_file)
            save_state(ws.state_file, reset_counters(state))
            n = len(state.specs)
            keep = "1 spec keeps its" if n == 1 else f"{n} specs keep their"
            yield f"counters and iteration reset ({keep} last status, hash and flag)"
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
