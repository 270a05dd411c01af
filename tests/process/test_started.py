"""process/started.py: the record of the processes ralph started and has not reaped."""

from __future__ import annotations

import subprocess

import pytest

from ralph.process import started

pytestmark = pytest.mark.slow  # real processes


def _stop(proc: subprocess.Popen[bytes]) -> None:
    proc.kill()
    proc.wait()


def test_a_reaped_child_leaves_the_record() -> None:
    # its PID may be given to an orphan next: the record holds only children not yet reaped
    done = started.run(["true"])
    assert done.returncode == 0
    proc = started.popen(["sleep", "60"])
    try:
        with started.ours() as mine:
            assert proc.pid in mine and done.args == ["true"]
    finally:
        _stop(proc)
    with started.ours() as mine:
        assert proc.pid not in mine


def test_a_run_past_its_timeout_is_killed_and_reaped() -> None:
    with pytest.raises(subprocess.TimeoutExpired):
        started.run(["sleep", "60"], timeout=0.05)
    with started.ours() as mine:
        assert not mine  # killed and waited for: no child of ralph's left running
