"""A person sees and decides: an escalation in a parallel run (a spec that does not converge,
while another lane still works) is asked on the terminal with nothing drawn over it, the other
lanes' output held until it is answered, and the run ends once that lane has (real CLI on a
pseudo-terminal). A lane's own breaker asks no one while another lane can go on
(tests/run/test_lanes.py)."""

from __future__ import annotations

import contextlib
import os
import sys
import time

import pytest

from tests.conftest import FAKES, Project
from tests.e2e.test_lanes import lanes_project
from tests.terminal import on_terminal, read_until

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="needs a POSIX pseudo-terminal")


@pytest.mark.slow
def test_an_escalation_in_a_parallel_run_is_answered_with_the_other_lanes_held(
    project: Project,
) -> None:

    marker = project.root.parent / "late-lane-done"
    gate = project.root.parent / "gate"
    wait_for_gate = f'"{sys.executable}" "{FAKES / "gate.py"}" "{gate}"'
    lanes_project(
        project,
        {
            **{f"specs/{n}.spec.md": f"# {n}\n" for n in "ac"},
            "ralph.yaml": "convergence: {patience: 1}\n",
        },
    )
    steps = {
        # its REVIEW changes files again: not converging, a person's call
        "specs/a.spec.md": [
            {"write": {"a.txt": "1\n"}, "signal": "DONE"},
            {"write": {"a.txt": "2\n"}, "signal": "DONE"},
        ],
        # still running when a person is asked; it ends while they are (the test
        # opens its gate once the question is on the terminal: an event, not a guessed time)
        "specs/c.spec.md": [
            {
                "run": f"{wait_for_gate}; touch {marker}",
                "say": "late lane line",
                "signal": "CONTINUE",
            }
        ],
    }
    cmd = project.script(steps)
    args = ["run", "--agent-command", cmd, "--parallel", "3", "-v"]
    proc, master = on_terminal(args, project.root, columns=120)
    seen = bytearray()
    try:
        read_until(master, b"Enter choice (1/2/3): ", seen)
        text = seen.decode(errors="replace")
        header = next(x for x in text.splitlines() if "Not converging" in x)
        assert "specs/a.spec.md" in header, header
        asked = len(seen)
        gate.touch()
        deadline = time.monotonic() + 30
        while not marker.exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists()
        time.sleep(1.0)  # the late lane's rotation has ended and been recorded by now
        with pytest.raises(AssertionError):  # nothing drawn over the question meanwhile
            read_until(master, b"late lane line", seen, timeout=1.0)
        assert b"Lanes:" not in seen[asked:] and b"idle" not in seen[asked:]
        os.write(master, b"2\n")  # Abort
        read_until(master, b"stopped (exit 5)", seen)
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            # the terminal is read to the end: a full one would block the run's last lines
            with contextlib.suppress(AssertionError):
                read_until(master, b"\0never\0", seen, timeout=0.5)
        assert proc.wait(timeout=5) == 5
    finally:
        proc.kill()
        proc.wait()
        os.close(master)
    after = seen[asked:].decode(errors="replace")
    assert "late lane line" in after  # held, then shown once answered
    assert project.worklog("escalation")[0]["choice"] == "abort"
