"""commands/status.py: `ralph status`."""

from __future__ import annotations

from tests.conftest import Project


def test_status_watch_and_json_do_not_mix(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    assert project.run("status", "--watch", "--json").exit_code == 2
