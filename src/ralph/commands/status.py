"""`ralph status`: the spec matrix seen against the specs on disk, the iteration and whether a
run is live; as a table, plain text or JSON, once or redrawn (--watch).

`ralph status [--json]` is also reached without Typer (entry.py), so it must import little.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ralph.errors import SpecError
from ralph.rules.counts.matrix import reconcile
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import State, status_to_json
from ralph.rules.text.printable import printable
from ralph.specs.discovery import discover_specs
from ralph.store.disk.workspace import Workspace
from ralph.store.live.liverun import RunInfo, read_run
from ralph.store.records.state import load_state

if TYPE_CHECKING:
    from ralph.rules.counts.runtotals import RunTotals


def status(
    root: Path, *, as_json: bool, watch: bool, interval: float, no_color: bool, log: int | None
) -> None:
    if not watch:
        print_status(root, as_json=as_json, no_color=no_color, log=log)
        return
    try:
        watch_status(root, interval=interval, no_color=no_color)
    except KeyboardInterrupt:
        return  # Ctrl-C is how a watch ends: not an error


def load_status(root: Path) -> tuple[State, RunInfo | None]:
    """The saved matrix seen against the specs on disk now, and the live run if any."""
    state, live, _ = load_checked(root)
    return state, live


def load_checked(root: Path) -> tuple[State, RunInfo | None, dict[str, SpecError]]:
    """`load_status`, with the specs `ralph run` would refuse (their front matter broken)."""
    from ralph.store.repository.checkout import foreign

    ws = Workspace(root)
    ws.check()
    # an earlier checkout's records (a clone at a path used before) describe nothing here
    state = State() if foreign(root) else load_state(ws.state_file)
    try:
        specs = discover_specs(root)  # ralph init's untouched template is no spec
    except SpecError:
        if not state.specs:
            raise
        specs = []  # every spec was removed: the saved matrix is still worth showing
    return reconcile(state, specs).state, read_run(ws.dir), broken_specs(specs)


def broken_specs(specs: list[Spec]) -> dict[str, SpecError]:
    """Each spec whose front matter `ralph run` refuses, with its error. Only a spec with a
    front matter is parsed (YAML and its schema are imported for it alone)."""
    found: dict[str, SpecError] = {}
    for spec in specs:
        if not spec.text.lstrip("\ufeff").startswith("---"):
            continue
        from ralph.specs.frontmatter import parse_front_matter

        try:
            parse_front_matter(spec.path, spec.text)
        except SpecError as exc:
            found[spec.path] = exc
    return found


def status_data(state: State, live: RunInfo | None) -> dict[str, Any]:
    """`status --json`: the state's JSON as seen from outside, and the live run if any."""
    from ralph.schemas.catalog import SCHEMA_VERSION

    data = {"schema_version": SCHEMA_VERSION, **status_to_json(state, running=live is not None)}
    if live is not None:
        data["run"] = live.data
    return data


def lanes_data(root: Path) -> list[dict[str, Any]]:
    """The open lanes of a `--parallel` run (ralph's record of them): where each one's work
    is."""
    from ralph.store.live.lanes import load_lanes

    lanes = load_lanes(root).lanes
    if not lanes:
        return []  # the usual case: the lane plumbing is not even imported
    from ralph.store.repository.worktrees import lane_path

    return [
        {
            "spec": lane.spec,
            "branch": lane.branch,
            "worktree": lane_path(root, lane.name).relative_to(root).as_posix(),
            "conflict": list(lane.conflict),
        }
        for lane in lanes
    ]


def format_event(event: dict[str, Any]) -> str:
    from ralph.rules.counts.recorded import epoch
    from ralph.ui.text import format_when  # only with --log: plain `status` must import little

    ts = epoch(event.get("ts"))  # a forged line's moment may be out of any clock's range
    when = "?" if ts is None else format_when(ts)
    rest = " ".join(
        f"{k}={json.dumps(v) if not isinstance(v, str) else v}"
        for k, v in event.items()
        if k not in ("ts", "event")
    )
    return printable(f"{when} {event.get('event', '?')} {rest}".rstrip())  # names, notes


def last_run(root: Path) -> RunTotals | None:
    """The numbers of the last run that did work (a run with nothing to do is no news), as it
    recorded them when it ended: the same figures as its end line and its reports."""
    from ralph.rules.counts.runtotals import recorded_totals
    from ralph.store.records.worklog import last_record

    def worked(rec: dict[str, Any]) -> bool:
        found = recorded_totals(rec)
        return found is not None and found.rotations > 0

    found = last_record(Workspace(root).worklog, "run_end", worked)
    return None if found is None else recorded_totals(found)


def print_status(
    root: Path, *, as_json: bool, no_color: bool = False, log: int | None = None
) -> None:
    state, live, broken = load_checked(root)
    events = None
    if log:
        from ralph.store.records.worklog import worklog_tail

        events = worklog_tail(Workspace(root).worklog, log)
    from ralph.rules.counts.forecast import costs_json, costs_line, spec_costs
    from ralph.store.records.limits import load_limits

    windows = load_limits(Workspace(root).dir).get("agents", {})
    lanes = lanes_data(root)
    last = last_run(root)
    if as_json:
        data = status_data(state, live)
        for row in data["specs"]:
            if row["path"] in broken:  # what `ralph run` would refuse it for
                row["error"] = broken[row["path"]].message
                row["needs_work"] = True
        data["limits"] = windows  # per agent, per window: as its CLI last reported it
        data["costs"] = costs_json(spec_costs(state.specs))
        data["last_run"] = None if last is None else last.to_json()
        if lanes:
            data["lanes"] = lanes
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
        "broken": frozenset(broken),
    }
    if sys.stdout.isatty():
        from rich.console import Console

        # Rich itself honours NO_COLOR; --no-color says the same from the command line.
        Console(no_color=True if no_color else None).print(
            statusview.render_status_table(state.specs, **args)
        )
    else:
        print(statusview.render_status_plain(state.specs, **args), end="")
    from ralph.store.repository.checkout import foreign

    if foreign(root):
        print(
            "note: ralph's private store for this path belongs to another checkout of the "
            "project (cloned again here?): not shown; the next `ralph run` starts afresh"
        )
    for exc in broken.values():
        hint = f" ({exc.hint})" if exc.hint else ""
        print(printable(f"error: {exc.message}{hint}; `ralph run` refuses to start until then"))
    for s in state.specs:
        if s.blocked:
            print(printable(f"blocked: {s.path}: {s.blocked} (raise the cap or run `ralph reset`)"))
    for lane in lanes:
        conflict = f"; conflicts in {', '.join(lane['conflict'])}" if lane["conflict"] else ""
        where = f"{lane['spec']} on {lane['branch']} in {lane['worktree']}"
        print(printable(f"lane: {where}{conflict}"))
    line = costs_line(spec_costs(state.specs))
    if line:
        print(f"cost: {line}")
    from ralph.store.records.worklog import KILLED
    from ralph.store.records.worklog import last_run as last_records

    seen = {r.get("event") for r in ([] if live else last_records(Workspace(root).worklog))}
    killed = "run_start" in seen and "run_end" not in seen
    if killed:  # its totals were never recorded: never the run before it under its name
        after = "" if "reset" in seen else ": `ralph run --continue` takes it over"
        print(f"last run: {KILLED}{after}")
    if last is not None:
        from ralph.ui.text import totals_line

        print(f"{'the run before it' if killed else 'last run'}: {totals_line(last)}")
    if windows:
        from ralph.rules.agents.limits import describe

        now = time.time()
        for name, agent_windows in sorted(windows.items()):
            said = describe(agent_windows, now) if isinstance(agent_windows, dict) else ""
            if said:
                print(f"limits: {name}: {said}")
    if events is not None:
        print(f"worklog (last {len(events)} events):")
        for event in events:
            print("  " + format_event(event))


def watch_status(root: Path, *, interval: float, no_color: bool) -> None:
    """`ralph status --watch`: the matrix, redrawn every `interval` seconds until Ctrl-C."""
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
