"""process/launcher.py: how ralph starts a check's process, one value (where, and by what)."""

from __future__ import annotations

from ralph.process.allowlist import AllowList
from ralph.process.launcher import PLAIN, Launcher
from ralph.process.request import OPEN, Confinement
from ralph.process.runner import run_process


def test_a_launcher_runs_by_the_process_runner_unless_a_test_says_otherwise() -> None:
    confined = Confinement(allow=AllowList(frozenset({"MINE"})))
    assert Launcher(confined).execute is run_process  # a run's: the real runner, its sandbox
    assert (PLAIN.confined, PLAIN.execute) == (OPEN, run_process)  # outside a run: no sandbox
