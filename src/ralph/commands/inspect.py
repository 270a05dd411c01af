"""`ralph inspect`: is a run live, and what is it doing: pid, spec, rotation, since when, which
agent; when none is, how the last one ended."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import Any

from ralph.store.disk.workspace import Workspace
from ralph.store.live.liverun import read_run
from ralph.ui.text import format_when


def inspect(root: Path, *, follow: bool, as_json: bool) -> None:
    if follow:
        from ralph.commands.follow import follow as follow_run

        follow_run(root, sys.stdout)
        return
    data = inspect_data(root)
    if as_json:
        from ralph.schemas.catalog import SCHEMA_VERSION

        print(json.dumps({"schema_version": SCHEMA_VERSION, **data}))
    else:
        from ralph.rules.text.printable import printable

        print("\n".join(printable(line) for line in inspect_lines(data)))  # it names the spec


def _clock(seconds: float) -> str:
    total = int(max(0.0, seconds))
    hours, rest = divmod(total, 3600)
    minutes, secs = divmod(rest, 60)
    return f"{hours}h{minutes:02d}m{secs:02d}s" if hours else f"{minutes}m{secs:02d}s"


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
        left = left_running(ws)
        if left:
            data["left_running"] = left
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
    lanes = info.get("lanes")
    if isinstance(lanes, dict) and lanes:  # `--parallel`: a rotation per lane
        data["lanes"] = [
            {
                "lane": name,
                "spec": lane.get("current_spec"),
                "iteration": lane.get("iteration"),
                "mode": lane.get("mode"),
                "agent": lane.get("agent"),
                "agent_pid": lane.get("agent_pid"),
                "rotation_started_at": lane.get("rotation_started"),
            }
            for name, lane in sorted(lanes.items())
            if isinstance(lane, dict)
        ]
    from ralph.store.live.cancel import read_request

    data["cancel_requested"] = read_request(ws.dir, live.pid)
    return data


def last_run(ws: Workspace) -> dict[str, Any] | None:
    """How the last run ended, from the worklog's last run_start / run_end records."""
    from ralph.store.records.worklog import KILLED, read_worklog

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
        out.update(ended_at=None, exit_code=None, reason=KILLED)
    else:
        out.update(ended_at=end.get("ts"), exit_code=end.get("exit_code"), reason=end.get("reason"))
    return out


def left_running(ws: Workspace) -> list[dict[str, Any]]:
    """The processes a dead run left running (it was killed: its run.json is still in the
    store), found by the run id they carry; the next run stops them."""
    from ralph.process.leftovers import left_by
    from ralph.store.disk.private import store_dir
    from ralph.store.live.liverun import RUN_FILE
    from ralph.store.live.runlock import load_json_quietly

    dead = load_json_quietly(store_dir(ws.root) / RUN_FILE)
    if not isinstance(dead, dict) or not isinstance(dead.get("run_id"), str):
        return []
    return [{"pid": pid, "command": cmd} for pid, cmd in left_by(dead["run_id"])]


def inspect_lines(data: dict[str, Any]) -> list[str]:
    if not data["running"]:
        left = data.get("left_running") or []
        lines = ["no run is live" + (": the last run is dead (killed?)" if left else "")]
        if left:
            n = "1 process" if len(left) == 1 else f"{len(left)} processes"
            lines.append(f"{n} of it still running (the next ralph run stops them):")
            lines += [f"  pid {p['pid']}: {p['command']}" for p in left[:20]]
        last = data.get("last_run")
        if last is not None:
            when = format_when(last["ended_at"]) if last.get("ended_at") else "?"
            code = "" if last.get("exit_code") is None else f" (exit {last['exit_code']})"
            lines.append(f"last run: ended {when}{code}: {last.get('reason')}")
        return lines
    lines = [
        f"run live: pid {data['pid']}, since {format_when(data['started_at'])} "
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
                f", since {format_when(data['rotation_started_at'])} "
                f"({_clock(data.get('rotation_running_for') or 0)})"
            )
        lines.append(rotation)
    elif data.get("lanes"):
        for lane in data["lanes"]:
            pid = f" (agent pid {lane['agent_pid']})" if lane.get("agent_pid") else ""
            since = lane.get("rotation_started_at")
            when = f", since {format_when(since)}" if isinstance(since, (int, float)) else ""
            lines.append(
                f"lane {lane['spec']}: rotation {lane.get('iteration')} [{lane.get('mode')}] "
                f"{lane.get('agent') or '?'}{pid}{when}"
            )
    else:
        lines.append("starting: no rotation yet")
    if data.get("cancel_requested"):
        how = "now" if data["cancel_requested"] == "now" else "after the current rotation"
        lines.append(f"cancel requested: stops {how}")
    return lines
