"""commands/accept.py: `ralph accept`."""

from __future__ import annotations

from tests.conftest import Project


def test_nothing_to_accept(git_project: Project) -> None:
    p = git_project
    p.write({"PROMPT.md": "# goal\n"})
    for args in ((), ("--dry-run",), ("--yes",)):
        res = p.run("accept", *args)
        assert res.exit_code == 0, res
        assert "nothing waits" in res.stdout
    assert not (p.root / ".ralph").exists()  # looking changed nothing


def test_yes_and_dry_run_contradict(git_project: Project) -> None:
    res = git_project.run("accept", "--yes", "--dry-run")
    assert res.exit_code == 2
