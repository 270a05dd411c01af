"""Operator commands that look at a run from another terminal: inspect, follow, cancel, watch."""

from __future__ import annotations

import os
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any, TextIO

from ralph.errors import RalphError
from ralph.store.runlock import is_live, read_run
from ralph.store.workspace import Workspace

FOLLOW_POLL = 0.2  # seconds between looks at current.log


class NoLiveRun(RalphError):
    """The command needs a live run and there is none."""


def _no_run(root: Path) -> NoLiveRun:
    return NoLiveRun(
        f"no ralph run is live in {root}",
        "start one with ralph run; ralph history shows past rotations",
    )


def _clock(seconds: float) -> str:
    total = int(max(0.0, seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


def _when(epoch: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(epoch))


def inspect_data(root: Path, now: float | None = None) -> dict[str, Any]:
    """What `ralph inspect --json` prints: is a run live, and what it is doing."""
    ws = Workspace(root)
    ws.check()
    live = read_run(ws.dir)
    now = time.time() if now is None else now
    if live is None:
        data: dict[str, Any] = {"running": False}
        last = last_run(ws)
        if last is not None:
            data["last_run"] = last
        return data
    info = live.data
    data = {
        "running": True,
        "pid": live.pid,
        "started_at": live.started_at,
        "running_for": round(now - live.started_at, 3) if live.started_at else None,
        "agent": info.get("agent"),
        "agent_pid": info.get("agent_pid"),
        "spec": info.get("current_spec"),
        "iteration": info.get("iteration"),
        "mode": info.get("mode"),
        "rotation_started_at": info.get("rotation_started"),
    }
    if isinstance(info.get("rotation_started"), (int, float)):
        data["rotation_running_for"] = round(now - float(info["rotation_started"]), 3)
    from ralph.store.cancel import read_request

    data["cancel_requested"] = read_request(ws.dir, live.pid)
    return data


def last_run(ws: Workspace) -> dict[str, Any] | None:
    """How the last run ended, from the worklog's last run_start / run_end records."""
    from ralph.commands.history import read_worklog

    start: dict[str, Any] | None = None
    end: dict[str, Any] | None = None
    for rec in read_worklog(ws.worklog):
        if rec.get("event") == "run_start":
            start, end = rec, None
        elif rec.get("event") == "run_end":
            end = rec
    if start is None:
        return None
    out: dict[str, Any] = {"started_at": start.get("ts"), "agent": start.get("agent")}
    if end is None:  # killed before it could say how it ended
        out.update(ended_at=None, exit_code=None, reason="ended without a record (killed?)")
    else:
        out.update(ended_at=end.get("ts"), exit_code=end.get("exit_code"), reason=end.get("reason"))
    return out


def inspect_lines(data: dict[str, Any]) -> list[str]:
    if not data["running"]:
        lines = ["no run is live"]
        last = data.get("last_run")
        if last is not None:
            when = _when(last["ended_at"]) if last.get("ended_at") else "?"
            code = "" if last.get("exit_code") is None else f" (exit {last['exit_code']})"
            lines.append(f"last run: ended {when}{code}: {last.get('reason')}")
        return lines
    lines = [
        f"run live: pid {data['pid']}, since {_when(data['started_at'])} "
        f"({_clock(data['running_for'] or 0)})",
    ]
    agent = data.get("agent") or "?"
    if data.get("agent_pid"):
        agent += f" (agent pid {data['agent_pid']})"
    lines.append(f"agent: {agent}")
    if data.get("spec"):
        lines.append(f"spec: {data['spec']}")
        rotation = f"rotation {data.get('iteration')} [{data.get('mode')}]"
        if data.get("rotation_started_at"):
            rotation += (
                f", since {_when(data['rotation_started_at'])} "
                f"({_clock(data.get('rotation_running_for') or 0)})"
            )
        lines.append(rotation)
    else:
        lines.append("starting: no rotation yet")
    if data.get("cancel_requested"):
        how = "now" if data["cancel_requested"] == "now" else "after the current rotation"
        lines.append(f"cancel requested: stops {how}")
    return lines


def follow(
    root: Path,
    out: TextIO,
    *,
    poll: float = FOLLOW_POLL,
    sleep: Callable[[float], None] = time.sleep,
) -> None:
    """Print the live run's current.log as it grows, like `tail -f`, rotation after rotation;
    return once the run has ended (after printing what it wrote last)."""
    from ralph.ui.text import clean_line

    ws = Workspace(root)
    ws.check()
    if not is_live(ws.dir):
        raise _no_run(root)
    path = ws.current_log
    header: bytes | None = None  # first line of the rotation being shown
    offset = 0
    partial = b""

    def emit(data: bytes, *, final: bool = False) -> None:
        nonlocal partial
        lines = (partial + data).split(b"\n")
        partial = b"" if final else lines.pop()
        for raw in lines:
            if final and not raw:
                continue
            out.write(clean_line(raw.decode("utf-8", "replace")) + "\n")
        out.flush()

    while True:
        live = is_live(ws.dir)  # looked at before reading: the last bytes are read after it ends
        try:
            with path.open("rb") as f:
                # Each rotation rewrites current.log from its header line ("# ralph rotation
                # N ... started=..."), unique per rotation: a new header means start over.
                head = f.readline(4096)
                if head.endswith(b"\n"):
                    size = f.seek(0, os.SEEK_END)
                    if head != header or size < offset:
                        if partial:
                            emit(b"", final=True)
                        header, offset = head, 0
                    if size > offset:
                        f.seek(offset)
                        data = f.read(size - offset)
                        offset += len(data)
                        emit(data)
        except FileNotFoundError:
            pass
        if not live:
            if partial:
                emit(b"", final=True)
            out.write("-- the run has ended\n")
            out.flush()
            return
        sleep(poll)


def cancel_run(root: Path, *, now: bool, wait: bool) -> Iterator[str]:
    from ralph.store.cancel import request_cancel

    ws = Workspace(root)
    ws.check()
    live = read_run(ws.dir)
    if live is None or not live.pid:
        raise _no_run(root)
    request_cancel(ws.dir, live.pid, "now" if now else "after")
    what = "stops its agent now" if now else "stops after the current rotation"
    yield f"cancel requested: run pid {live.pid} {what} (it exits 130)"
    if wait:
        while is_live(ws.dir):
            time.sleep(0.1)
        yield "the run has stopped"


def watch_status(root: Path, *, interval: float, no_color: bool) -> None:
    """`ralph status --watch`: the matrix, redrawn every `interval` seconds until Ctrl-C."""
    from ralph.commands.project import load_status
    from ralph.ui.terminal import colour_disabled, is_terminal

    if not is_terminal(sys.stdout):
        # A pipe or a CI log gets one plain snapshot per refresh, with a time stamp.
        from ralph.ui import statustable as statusview

        while True:
            state, live = load_status(root)
            print(f"-- {time.strftime('%H:%M:%S')}")
            print(
                statusview.render_status_plain(
                    state.specs,
                    iteration=state.iteration,
                    max_iteration=state.max_iteration,
                    running=live is not None,
                    complete=state.complete,
                ),
                end="",
                flush=True,
            )
            time.sleep(interval)
    from rich.console import Console
    from rich.live import Live

    from ralph.ui import statustable as statusview

    console = Console(no_color=colour_disabled(no_color))

    def render() -> Any:
        state, live = load_status(root)
        return statusview.render_status_table(
            state.specs,
            iteration=state.iteration,
            max_iteration=state.max_iteration,
            running=live is not None,
            complete=state.complete,
        )

    with Live(render(), console=console, auto_refresh=False, screen=False) as view:
        while True:
            time.sleep(interval)
            view.update(render(), refresh=True)


__all__ = ["NoLiveRun", "cancel_run", "follow", "inspect_data", "inspect_lines", "watch_status"]
