"""`ralph run` from the top: the checks before anything is created, the project held, and the
run handed to one-spec mode or, with `--parallel N`, to lanes."""

from __future__ import annotations

from dataclasses import replace

from ralph.checks.gate import validate_front_matter
from ralph.errors import ExitCode
from ralph.process.orphans import sweep
from ralph.run.context import Emit, open_run
from ralph.run.events import Notice
from ralph.run.interrupts import stop_signals_as_interrupt
from ralph.run.loop import SpecRun
from ralph.run.options import RunOptions
from ralph.run.takeover import take_over
from ralph.specs.discovery import discover_specs
from ralph.specs.selection import select_specs
from ralph.store.disk.workspace import Workspace
from ralph.store.live.cancel import CancelWatch
from ralph.store.live.runlock import RunLock
from ralph.store.rooms.startcopy import drop_start_copy


def run_loop(opts: RunOptions, emit: Emit) -> int:
    """Run rotations until every spec is verified or a stop condition; returns the exit code."""
    ws = Workspace(opts.root)
    ws.check()
    # no specs, or a spec with invalid front matter: say so before creating anything
    validate_front_matter(discover_specs(opts.root))
    if opts.settings.spec:
        chosen = select_specs(opts.root, opts.settings.spec)  # as the specs' own paths
        opts = replace(opts, settings=replace(opts.settings, spec=chosen))
    # the run's sandbox folder, in its record: the next run removes it if this one is killed
    box = opts.launcher.confined.box
    scratch = str(box.scratch) if box is not None else None
    taking = RunLock(ws.dir, agent=opts.label, agents=[m.name for m in opts.pool], sandbox=scratch)
    with (
        taking as lock,
        stop_signals_as_interrupt(),
        CancelWatch(ws.dir) as cancel,
    ):
        ws.ensure()
        shared, state = open_run(opts, ws, emit, lock, cancel)
        for note in lock.notes:  # what taking the project put right (store/disk/private.py)
            shared.emit(Notice("warning", note))
        take_over(shared, state)  # a killed run's records caught up with the state, first
        if opts.settings.parallel > 1:
            from ralph.run.lanes import LaneRun  # only when asked for

            run: SpecRun = LaneRun(shared, state)
        else:
            run = SpecRun(shared, state)
        try:
            code = run.run()
        finally:
            sweep()  # no rotation under way: no orphan of the run's outlives it
            run.gate.tests.finish()  # what ralph saw of the tests when the run ended
            run.gate.place.finish()  # and when it ended, for the environments' copies
        if code == ExitCode.OK:  # the next run begins afresh: its own start copy
            drop_start_copy(opts.root)
        return code
