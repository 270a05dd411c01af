"""process/leftovers.py: what a run killed with SIGKILL left running, found by the run id its
processes carry, stopped by the next run; never this run's own, never another run's.

Whole takeovers after kill -9 are tests/e2e/test_takeover.py's."""

from __future__ import annotations

import os
import signal
import subprocess
import sys

import pytest

from ralph.process import leftovers
from ralph.process.leftovers import RUN_MARKER


def test_a_marked_run_hands_its_id_to_every_process() -> None:
    try:
        assert leftovers.run_mark() == {} and leftovers.current_run() is None
        leftovers.mark_run("r1")
        assert leftovers.run_mark() == {RUN_MARKER: "r1"} and leftovers.current_run() == "r1"
        assert leftovers.stop_marked("") == []  # no id: nothing to look for
    finally:
        leftovers.mark_run(None)


@pytest.mark.slow  # starts processes to stop
@pytest.mark.skipif(sys.platform == "win32", reason="sleep, sessions")
def test_stop_marked_kills_exactly_the_marked_and_never_its_own_run() -> None:
    def start(run_id: str) -> subprocess.Popen[bytes]:
        env = {**os.environ, RUN_MARKER: run_id}
        return subprocess.Popen(["sleep", "60"], env=env, start_new_session=True)

    target, longer, own = start("dead-run"), start("dead-run-2"), start("live-run")
    try:
        leftovers.mark_run("live-run")
        assert leftovers.stop_marked("live-run") == []  # this run's own processes
        assert len(leftovers.stop_marked("dead-run")) == 1
        assert target.wait(5) == -signal.SIGKILL
        assert longer.poll() is None and own.poll() is None  # a longer id is another run
    finally:
        leftovers.mark_run(None)
        for proc in (target, longer, own):
            proc.kill()
            proc.wait()


@pytest.mark.slow  # starts a process to find
@pytest.mark.skipif(sys.platform == "win32", reason="sleep")
def test_left_by_names_a_dead_runs_processes_and_stops_none() -> None:
    env = {**os.environ, RUN_MARKER: "dead-run"}
    target = subprocess.Popen(["sleep", "60"], env=env, start_new_session=True)
    other = subprocess.Popen(["sleep", "61"], env={**os.environ, RUN_MARKER: "another"})
    try:
        assert leftovers.left_by("dead-run") == [(target.pid, "sleep 60")]
        assert target.poll() is None  # looked at, not stopped
        assert leftovers.left_by("") == []  # control: no id names nothing
    finally:
        for proc in (target, other):
            proc.kill()
            proc.wait()
