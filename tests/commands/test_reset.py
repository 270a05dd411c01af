"""commands/reset.py: `ralph reset`."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.conftest import Project
from tests.e2e.test_own_hands import outside, refused, untouched  # noqa: F401 -- a fixture
from tests.e2e.test_sandbox_run import disk_tmp, need  # noqa: F401 -- the fixture, and the skip

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlinks")


def test_reset_guardrails_refuses_a_linked_guardrails_file(
    git_project: Project,
    outside: Path,  # noqa: F811
) -> None:
    assert git_project.run("init").exit_code == 0
    guardrails = git_project.root / ".ralph" / "guardrails.md"
    guardrails.unlink()
    guardrails.symlink_to(outside / ".bashrc")
    refused(git_project.run("reset", "--guardrails"), "guardrails.md", "link")
    untouched(outside)


def test_reset_all_on_a_linked_folder_refuses_before_deleting_anything(
    git_project: Project,
    outside: Path,  # noqa: F811
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
