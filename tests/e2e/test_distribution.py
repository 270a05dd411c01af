"""The name users install ralph by: one distribution name everywhere, never a stranger's project."""

from __future__ import annotations

import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib


REPO = Path(__file__).resolve().parents[2]


PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())


NAME = PYPROJECT["project"]["name"]


VERSION = PYPROJECT["project"]["version"]


@pytest.mark.slow
def test_sdist_and_wheel_build_and_pass_twine_check(tmp_path: Path) -> None:
    # Built from a copy of the tracked files, as a release would be; no network (no isolation).
    tracked = subprocess.run(
        ["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True
    ).stdout.decode()
    source = tmp_path / "src-tree"
    for rel in filter(None, tracked.split("\0")):
        if (REPO / rel).is_file():
            (source / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / rel, source / rel)
    out = tmp_path / "dist"
    build = [sys.executable, "-m", "build", "--no-isolation", "--outdir", str(out), str(source)]
    done = subprocess.run(build, capture_output=True, text=True, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    stem = NAME.replace("-", "_")
    sdist, wheel = out / f"{stem}-{VERSION}.tar.gz", out / f"{stem}-{VERSION}-py3-none-any.whl"
    assert sdist.is_file() and wheel.is_file(), sorted(p.name for p in out.iterdir())
    twine = [sys.executable, "-m", "twine", "check", "--strict", str(sdist), str(wheel)]
    checked = subprocess.run(twine, capture_output=True, text=True, check=False)
    assert checked.returncode == 0, checked.stdout + checked.stderr
    with zipfile.ZipFile(wheel) as whl:
        meta = whl.read(f"{stem}-{VERSION}.dist-info/METADATA").decode()
        entry = whl.read(f"{stem}-{VERSION}.dist-info/entry_points.txt").decode()
        names = whl.namelist()
    assert f"Name: {NAME}\n" in meta
    assert "ralph = ralph.entry:main" in entry
    assert "ralph/py.typed" in names and "ralph/agents/demo/__main__.py" in names
    # `ralph schema NAME` reads its schemas from the installed package
    assert {f"ralph/schemas/{n}.json" for n in ("status", "report", "event")} <= set(names)
