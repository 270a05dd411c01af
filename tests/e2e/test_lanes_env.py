"""Lanes that need the same checks' environment at the same moment: ralph builds it once and
both use it. Two lanes declaring the same new dependency at once raced on one build folder
(`uv venv` in a folder the other lane had just wiped: "Current directory does not exist", or "A
virtual environment already exists"): an honest DONE refused as the tree's failure."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests.conftest import Project
from tests.e2e.test_environment import venv_project
from tests.e2e.test_package_sources import index  # noqa: F401 -- the person's index fixture

pytestmark = pytest.mark.slow

SETUP = "[metadata]\nname = calc\n\n[options]\ninstall_requires =\n    tinydep\n"
FIX = "from tinydep import total\n\n\ndef mean(xs):\n    return total(xs) / len(xs)\n"


def test_two_lanes_declaring_the_same_dependency_at_once_are_both_verified(
    project: Project,
    index: Path,  # noqa: F811 -- the fixture
) -> None:
    p = project
    venv_project(p)
    spec = (p.root / "PROMPT.md").read_text().replace(".venv/bin/python", "python")
    p.monkeypatch.setenv("VIRTUAL_ENV", str(p.root / ".venv"))
    p.monkeypatch.setenv("PATH", f"{p.root / '.venv' / 'bin'}{os.pathsep}{os.environ['PATH']}")
    (p.root / "PROMPT.md").unlink()
    p.write({"specs/a.spec.md": spec, "specs/b.spec.md": spec.replace("# mean", "# mean b")})
    p.commit_all("two specs")
    # both lanes write the same fix and declaration, and say DONE at once
    steps = [{"write": {"calc.py": FIX, "setup.cfg": SETUP}, "signal": "DONE"}, {"signal": "DONE"}]
    res = p.run("run", "--agent-command", p.script({"*": steps}), "-n", "12", "--parallel", "2")
    assert res.exit_code == 0, res.stdout
    refused = [e for e in p.rotation_ends() if e["signal"] == "REFUSED"]
    assert refused == [], refused
    assert p.counts() == {"specs/a.spec.md": 3, "specs/b.spec.md": 3}
