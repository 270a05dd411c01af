"""commands/cancel.py: `ralph cancel`."""

from __future__ import annotations

from tests.conftest import Project


def test_cancel_without_a_live_run_is_an_error(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("cancel")
    assert res.exit_code == 1, res
    assert "error: no ralph run is live" in res.stderr
    assert not (project.root / ".ralph" / "cancel.json").exists()
