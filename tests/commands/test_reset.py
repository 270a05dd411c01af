"""commands/reset.py: `ralph reset`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import Project, Result
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


def refused(result: Result, *words: str) -> None:
    """Exit 1, one `error:` line (and its hint) saying a link was refused, no traceback."""
    assert result.exit_code == 1, result
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1, result
    assert "Traceback" not in result.stderr + result.stdout
    for word in words:
        assert word in errors[0], result


def test_reset_guardrails_refuses_a_linked_guardrails_file(
    git_project: Project, outside: Path
) -> None:
    assert git_project.run("init").exit_code == 0
    guardrails = git_project.root / ".ralph" / "guardrails.md"
    guardrails.unlink()
    guardrails.symlink_to(outside / ".bashrc")
    refused(git_project.run("reset", "--guardrails"), "guardrails.md", "link")
    untouched(outside)


def test_reset_all_on_a_linked_folder_refuses_before_deleting_anything(
    git_project: Project, outside: Path
) -> None:
    assert git_project.run("init").exit_code == 0
    handoff = git_project.root / ".ralph" / "handoffs" / "a-123456.md"
    handoff.write_text("the person's notes\n")
    history = git_project.root / ".ralph" / "history"
    history.rmdir()
    history.symlink_to(outside)
    refused(git_project.run("reset", "--all"), "history", "link")
    untouched(outside)
    assert handoff.read_text() == "the person's notes\n"  # not half-way: nothing was deleted
