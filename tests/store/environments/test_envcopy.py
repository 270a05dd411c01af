"""store/environments/envcopy.py: the environment the checks run in is ralph's own."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from ralph.store.environments.envcopy import record_start_envs, start_envs

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX venv layout")


def test_after_a_killed_run_the_copies_are_kept(tmp_path: Path) -> None:
    # a run killed mid-rotation: what its agent did to the environment stays out; a run
    # that ended copies the environments anew (a person may have installed something)
    root = tmp_path / "proj"
    site = root / ".venv" / "lib" / "python3.11" / "site-packages"
    site.mkdir(parents=True)
    (root / ".venv" / "pyvenv.cfg").write_text("home = /nowhere\n")
    assert record_start_envs(root).names == [".venv"]
    copy = start_envs(root) / ".venv" / "lib" / "python3.11" / "site-packages"
    (site / "sitecustomize.py").write_text("")
    record_start_envs(root, keep=True)
    assert not (copy / "sitecustomize.py").exists()
    record_start_envs(root, keep=False)
    assert (copy / "sitecustomize.py").is_file()
