"""The bundled example: the demo reaches 3/3 everywhere, and its recorded .ralph/ is current."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.example_sync import EXAMPLE, read_recording, run_demo

pytestmark = pytest.mark.slow


def test_demo_run_verifies_every_spec_and_matches_the_recording(tmp_path: Path) -> None:
    proc, project = run_demo(tmp_path)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "every spec verified" in proc.stdout
    # the whole cycle is shown: a change in one spec drops another from 3/3 to 2/3
    assert "3/3→2/3" in proc.stdout or "3/3->2/3" in proc.stdout
    # the code the demo agent wrote really works
    out = subprocess.run(
        [sys.executable, "-m", "greet", "Ada", "--shout"],
        cwd=project,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip() == "HELLO, ADA!"
    fresh = read_recording(project / ".ralph")
    recorded = read_recording(EXAMPLE / ".ralph")
    assert sorted(fresh) == sorted(recorded), (
        "run `make example` to re-record .ralph-example/.ralph"
    )
    for name in fresh:
        assert fresh[name] == recorded[name], f"{name} differs: run `make example` to re-record"
