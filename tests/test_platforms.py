"""Linux, macOS and Windows: stop signals on each, and CI on all three.

The run lock on each (the probe Windows uses works on any filelock) is in
tests/store/live/test_runlock.py."""

from __future__ import annotations

import signal
from pathlib import Path

from ralph.process.signals import STOP_SIGNALS
from tests.platforms import WINDOWS


def test_stop_signals_are_the_platforms_own() -> None:
    names = {signal.Signals(sig).name for sig in STOP_SIGNALS}
    if WINDOWS:
        assert names == {"SIGTERM", "SIGBREAK"}
    else:
        assert names == {"SIGTERM", "SIGHUP"}


def test_ci_runs_make_test_on_three_platforms_with_every_supported_python() -> None:
    import re

    import yaml

    repo = Path(__file__).resolve().parents[1]
    workflow = yaml.safe_load((repo / ".github" / "workflows" / "ci.yml").read_text())
    job = workflow["jobs"]["test"]
    matrix = job["strategy"]["matrix"]
    assert set(matrix["os"]) == {"ubuntu-latest", "macos-latest", "windows-latest"}
    assert job["strategy"]["fail-fast"] is False  # one platform's failure hides no other's
    pyproject = (repo / "pyproject.toml").read_text()
    lowest = re.search(r'requires-python = ">=3\.(\d+)"', pyproject)
    assert lowest is not None
    minors = sorted(int(v.split(".")[1]) for v in matrix["python"])
    assert minors[0] == int(lowest.group(1))
    assert minors == list(range(minors[0], minors[-1] + 1))  # none skipped in between
    assert [s["run"] for s in job["steps"] if s.get("name") == "make test"] == ["make test"]
    dist = [s["run"] for s in workflow["jobs"]["dist"]["steps"] if "run" in s]
    assert any(r.startswith("make dist") for r in dist)
