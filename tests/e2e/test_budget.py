"""The latency budget for ralph's own per-rotation work (seed T3.5)."""

from __future__ import annotations

from tests.conftest import Project


def test_each_rotation_records_its_budget_in_the_worklog(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    res = git_project.run("run", *git_project.fake({"*": [{"signal": "DONE"}]}))
    assert res.exit_code == 0, res
    budgets = git_project.worklog("budget")
    assert [b["iteration"] for b in budgets] == [1, 2, 3, 4]  # the verification too
    for b in budgets:
        assert b["total_ms"] == 3000
        assert 0 < b["used_ms"] < 3000
        assert {"snapshot", "state_save"} <= set(b["ops"])
        assert b["skipped"] == []
    assert {"rescan", "prompt", "bookkeeping", "logs"} <= set(budgets[0]["ops"])


def test_a_tiny_budget_skips_optional_work_and_warns(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n", "ralph.yaml": "latency_budget_ms: 0.001\n"})
    cmd = git_project.fake({"*": [{"write": {"a.py": "1"}, "signal": "CONTINUE"}]})
    res = git_project.run("run", *cmd, "-n", "1")
    assert res.exit_code == 3, res
    (budget,) = git_project.worklog("budget")
    assert budget["skipped"] == ["changed_paths"]
    (files,) = git_project.worklog("files_changed")
    assert (files["count"], files["paths"]) == (1, [])  # the count is never skipped
    assert "over its 0 ms budget" in res.stdout
