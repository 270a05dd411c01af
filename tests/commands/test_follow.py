"""commands/follow.py: `ralph inspect --follow`: the live run's current.log as it grows,
rotation after rotation, until the run ends (stepped here through its `sleep` seam)."""

from __future__ import annotations

import io
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from ralph.commands.follow import follow
from ralph.errors import NoLiveRun, RalphError
from ralph.store.disk.workspace import Workspace
from ralph.store.live.runlock import RunLock


def test_no_live_run_is_one_line(tmp_path: Path) -> None:
    with pytest.raises(NoLiveRun):
        follow(tmp_path, io.StringIO())


def _steps(*steps: Callable[[], None]) -> Callable[[float], None]:
    """A `sleep` that does the next step each time follow waits."""
    todo = list(steps)

    def sleep(_: float) -> None:
        todo.pop(0)()

    return sleep


def test_the_log_is_followed_across_rotations_until_the_run_ends(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    out = io.StringIO()
    lock = RunLock(ws.dir)
    lock.__enter__()
    log = ws.current_log
    log.write_text("# ralph rotation 1 started=1\nfirst \x1b[31mline\x1b[0m\nhalf")

    def grow() -> None:
        with log.open("a") as f:
            f.write(" a line\n")

    def rotate() -> None:
        # longer than the first: only its header tells it is a new rotation
        log.write_text("# ralph rotation 2 started=2\n" + "second " * 20 + "\n")

    def end() -> None:
        with log.open("a") as f:
            f.write("last words, no newline")
        lock.__exit__(None, None, None)

    follow(tmp_path, out, sleep=_steps(grow, rotate, end))
    assert out.getvalue().splitlines() == [
        "# ralph rotation 1 started=1",
        "first line",  # escape codes removed
        "half a line",
        "# ralph rotation 2 started=2",
        "second " * 19 + "second",
        "last words, no newline",
        "-- the run has ended",
    ]


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes")
def test_a_pipe_for_current_log_is_refused_never_waited_on(tmp_path: Path) -> None:
    ws = Workspace(tmp_path)
    with RunLock(ws.dir):
        os.mkfifo(ws.current_log)
        with pytest.raises(RalphError, match=r"current\.log"):
            follow(tmp_path, io.StringIO(), sleep=_steps())
