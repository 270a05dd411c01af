"""commands/plan.py: `ralph plan [--json]`: the specs that still need work with their lane
branch; as JSON, a GitHub Actions matrix."""

from __future__ import annotations

import json
from dataclasses import replace

from ralph.commands.plan import plan_data
from ralph.commands.status import load_status
from ralph.rules.counts.lanes import lane_branch
from ralph.store.disk.workspace import Workspace
from ralph.store.records.state import save_state
from tests.conftest import Project
from tests.schemas.test_catalog import problems

SPECS = {"specs/a.spec.md": "# a\n", "specs/b.spec.md": "# b\n"}


def test_each_spec_that_needs_work_is_a_job_of_the_matrix(project: Project) -> None:
    project.write(SPECS)
    res = project.run("plan", "--json")
    assert res.exit_code == 0, res
    data = json.loads(res.stdout)
    assert problems("plan", data) == []
    assert data["include"] == [
        {"spec": "specs/a.spec.md", "branch": lane_branch("specs/a.spec.md"), "done_count": 0},
        {"spec": "specs/b.spec.md", "branch": lane_branch("specs/b.spec.md"), "done_count": 0},
    ]
    shown = project.run("plan").stdout.splitlines()
    assert shown[0] == f"specs/a.spec.md  0/3  branch {lane_branch('specs/a.spec.md')}"


def test_a_spec_at_three_is_no_job(project: Project) -> None:
    project.write(SPECS)
    ws = Workspace(project.root)
    ws.ensure()
    state, _ = load_status(project.root)
    for row in state.specs:
        state = state.with_spec(replace(row, done_count=3))
    save_state(ws.state_file, state)
    assert plan_data(project.root)["include"] == []
    assert "nothing to plan" in project.run("plan").stdout
