"""commands/init.py: `ralph init`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import Project
from tests.e2e.test_sandbox_run import disk_tmp, need  # noqa: F401 -- the fixture, and the skip

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlinks")


SENTINEL = "the person's own file, never to be changed\n"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A folder outside the project with a file of known content, as a home folder would be."""
    folder = tmp_path / "home"
    folder.mkdir(exist_ok=True)
    (folder / ".bashrc").write_text(SENTINEL)
    return folder


def untouched(folder: Path) -> None:
    """The outside folder holds exactly its sentinel, unchanged."""
    assert sorted(p.name for p in folder.iterdir()) == [".bashrc"]
    assert (folder / ".bashrc").read_text() == SENTINEL


def test_init_force_deletes_a_link_inside_ralph_not_what_it_points_to(
    git_project: Project, outside: Path
) -> None:
    assert git_project.run("init").exit_code == 0
    (git_project.root / ".ralph" / "history").rmdir()
    (git_project.root / ".ralph" / "history").symlink_to(outside)
    (git_project.root / ".ralph" / "notes.md").symlink_to(outside / ".bashrc")
    assert git_project.run("init", "--force").exit_code == 0
    untouched(outside)
    assert (git_project.root / ".ralph" / "history").is_dir()
    assert not (git_project.root / ".ralph" / "history").is_symlink()


def test_init_says_which_tests_it_recognises(project: Project) -> None:
    """A tape project's `test/` folder is found; tests kept where no pattern looks are said
    with what to set in ralph.yaml, and once set there they are found."""
    project.write({"test/index.js": "const test = require('tape');\n"})
    assert "tests: 1 test file found: they may grow, never shrink" in project.run("init").stdout
    (project.root / "test").rename(project.root / "checks")
    said = project.run("init", "--force").stdout
    assert "tests: no test file matches ralph's test patterns, so no test is guarded" in said
    assert 'name yours with `tests:` in ralph.yaml, e.g. `tests: ["spec/**/*.js"]`' in said
    project.write({"ralph.yaml": 'tests: ["checks/*.js"]\n'})
    assert "tests: 1 test file found" in project.run("init", "--force").stdout
