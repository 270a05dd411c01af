"""What each command does, below the option parsing: init, run, status, reset."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ralph.errors import LockError, SpecError
from ralph.matrix import reconcile, reset_counters
from ralph.runlock import RunLock, read_run
from ralph.specs import SEARCHED, find_spec_paths, read_spec
from ralph.state import State, load_state, save_state
from ralph.workspace import (
    GUARDRAILS_TEMPLATE,
    PROMPT_TEMPLATE,
    STATE_DIR,
    Workspace,
    ensure_gitignored,
)


def init_project(root: Path, *, force: bool) -> Iterator[str]:
    ws = Workspace(root)
    if ws.dir.exists():
        if not force:
            raise LockError(
                f"{ws.rel(ws.dir)}/ already exists in {root}",
                "ralph init --force re-creates it (state, handoffs and history are lost; "
                "specs under .ralph/specs/ are kept)",
            )
        with RunLock(ws.dir):  # never clobber the state of a live run
            pass
        for entry in ws.dir.iterdir():
            if entry.name == "specs":  # .ralph/specs/ holds the user's specs: never deleted
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


@dataclass(frozen=True)
class RunRequest:
    root: Path
    agent: str | None = None
    agent_command: str | None = None
    max_iterations: int | None = None
    timeout: float | None = None
    idle_timeout: float | None = None
    plain: bool = False
    no_color: bool = False
    verbose: bool = False


def run_project(req: RunRequest) -> int:
    from ralph.agent import make_agent
    from ralph.config import load_config
    from ralph.loop import RunOptions, run_loop
    from ralph.ui import make_display

    config = load_config(req.root)
    command: str | list[str] | None
    if req.agent_command is not None:
        name, command = req.agent, req.agent_command
    elif req.agent is not None:
        name, command = req.agent, None
    else:
        name, command = config.agent.name, config.agent.command
    agent = make_agent(name, command, config.agent.env)
    agent.resolve(req.root)  # a missing agent is an error before anything runs
    opts = RunOptions(
        root=req.root,
        agent=agent,
        max_iterations=req.max_iterations or config.max_iterations,
        timeout=req.timeout if req.timeout is not None else config.agent.timeout,
        idle_timeout=req.idle_timeout
        if req.idle_timeout is not None
        else config.agent.idle_timeout,
        kill_grace=config.agent.kill_grace,
    )
    with make_display(
        stream=sys.stdout, force_plain=req.plain, no_color=req.no_color, verbose=req.verbose
    ) as display:
        return run_loop(opts, display.handle)


def status_data(root: Path) -> dict[str, Any]:
    """The matrix as `status --json` prints it: the saved state, seen against the specs now."""
    ws = Workspace(root)
    ws.check()
    state = load_state(ws.state_file)
    specs = [s for s in (read_spec(root, p) for p in find_spec_paths(root)) if s is not None]
    if not specs and not state.specs:
        raise SpecError(f"no specs found in {root}", f"create one ({SEARCHED})")
    view = reconcile(state, specs).state
    live = read_run(ws.dir)
    data: dict[str, Any] = {
        "iteration": view.iteration,
        "max_iterations": view.max_iteration,
        "running": live is not None,
        "complete": view.complete,
        "current_spec": view.current_spec,
        "specs": [
            {
                "path": s.path,
                "done_count": s.done_count,
                "last_status": s.last_status,
                "modified_files": s.modified_files,
                "last_hash": s.last_hash,
                "needs_work": s.needs_work,
                "rotations": s.rotations,
            }
            for s in view.specs
        ],
    }
    if live is not None:
        data["run"] = live.data
    return data


def print_status(root: Path, *, as_json: bool) -> None:
    data = status_data(root)
    if as_json:
        print(json.dumps(data))
        return
    from ralph.events import SpecRow

    rows = [
        SpecRow(s["path"], s["done_count"], s["last_status"], s["modified_files"])
        for s in data["specs"]
    ]
    args: dict[str, Any] = {
        "iteration": data["iteration"],
        "max_iteration": data["max_iterations"],
        "running": data["running"],
        "complete": data["complete"],
    }
    if sys.stdout.isatty():
        from rich.console import Console

        from ralph.ui import render_status_table

        Console().print(render_status_table(rows, **args))
    else:
        from ralph.ui import render_status_plain

        print(render_status_plain(rows, **args))


def reset_project(root: Path, *, handoffs: bool, history: bool, guardrails: bool) -> Iterator[str]:
    ws = Workspace(root)
    ws.check()
    if not ws.dir.exists():
        yield f"nothing to reset: no {STATE_DIR}/ in {root}"
        return
    with RunLock(ws.dir):  # refused while a live run holds the lock
        if ws.state_file.exists():
            state = load_state(ws.state_file)
            save_state(ws.state_file, reset_counters(state))
            yield f"counters and iteration reset ({len(state.specs)} specs keep their last status)"
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
