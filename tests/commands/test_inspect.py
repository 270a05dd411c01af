"""commands/inspect.py: `ralph inspect`."""

from __future__ import annotations

from tests.conftest import Project


def test_inspect_follow_without_a_run_is_an_error(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("inspect", "--follow")
    assert res.exit_code == 1, res
    assert "no ralph run is live" in res.stderr
