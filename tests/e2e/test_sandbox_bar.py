"""The same rules sandboxed or not: the tests' bar (checks/bar.py) is measured before the first
rotation under every sandbox mode. It used to run in a room the sandbox hid, so under
`--sandbox` no bar was ever measured and code that makes a failing test skip set the bar with
its first DONE, and was verified only when sandboxed."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from tests.conftest import Project
from tests.e2e.test_evidence_runs import MEAN_TEST, PYTEST, WRONG
from tests.e2e.test_sandbox_run import disk_tmp, need

__all__ = ["disk_tmp"]  # the fixture, shared

pytestmark = [pytest.mark.slow]

# mean() is still wrong; the one test that catches it now skips instead of failing (the skip
# is reached at run time: a static reading, rules/evidence/callers.py, would refuse a plain
# `pytest.skip` before the checks, and this test is about the bar)
SKIPPING = """\
def mean(xs):
    if list(xs) == [1, 2, 3]:
        getattr(__import__("py" + "test"), "sk" + "ip")("not applicable here")
    return sum(xs) / (len(xs) + 1)
"""
AGENT = """\
import pathlib
pathlib.Path("calc/__init__.py").write_text({code!r})
print("<ralph>DONE</ralph>")
"""


def mean_project(root: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    p = Project(root, monkeypatch)
    root.mkdir()
    p.git("init", "-q")
    command = json.dumps(PYTEST.format(python=sys.executable))
    p.write(
        {
            "specs/mean.spec.md": f"---\ntest_command: {command}\n---\n# mean\n\nThe average.\n",
            "calc/__init__.py": WRONG,
            "tests/test_mean.py": MEAN_TEST,
        }
    )
    p.commit_all()
    return p


@pytest.mark.parametrize("profile", ["off", "bwrap", "srt"])
def test_code_that_makes_a_test_skip_is_refused_sandboxed_or_not(
    profile: str, disk_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    if profile != "off":
        need(profile, monkeypatch)
    p = mean_project(disk_tmp / "proj", monkeypatch)
    agent = disk_tmp / "skipper.py"
    agent.write_text(AGENT.format(code=SKIPPING))
    res = p.run_subprocess(
        "run",
        "--sandbox",
        profile,
        "--agent-command",
        f"{sys.executable} {agent}",
        "-n",
        "2",
        "--headless",
        timeout=300,
    )
    assert res.exit_code == 3, res
    # measured before the first rotation, where the checks run: 4 tests ran (1 failed)
    assert "tests' bar of specs/mean.spec.md: 4 tests ran before the first rotation" in res.stdout
    assert "fewer tests passed than in the best run (3 < 4)" in res.stdout, res.stdout
    assert p.counts() == {"specs/mean.spec.md": 0}
    assert p.state()["specs"][0]["best_tests"]["passed"] == 4  # the bar: every test that ran
