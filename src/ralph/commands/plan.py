"""`ralph plan [--json]`: the specs that still need work, each with the lane branch it would
run on; as JSON, a GitHub Actions matrix (`{"include": [{"spec": ..., "branch": ...}]}`) for
fanning specs out to CI jobs that each run `ralph run --spec PATH` (see docs/how-to/ci-lanes.md)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ralph.commands.status import load_status
from ralph.rules.counts.lanes import lane_branch
from ralph.rules.text.printable import printable
from ralph.schemas.catalog import SCHEMA_VERSION


def plan_data(root: Path) -> dict[str, Any]:
    state, _ = load_status(root)
    include = [
        {
            "spec": row.path,
            "branch": lane_branch(row.path),
            "done_count": row.done_count,
        }
        for row in state.specs
        if row.needs_work
    ]
    # `include` is a GitHub Actions job matrix: a workflow passes `.include` on (docs/ci/)
    return {"schema_version": SCHEMA_VERSION, "include": include}


def plan(root: Path, *, as_json: bool) -> int:
    data = plan_data(root)
    if as_json:
        print(json.dumps(data))
        return 0
    if not data["include"]:
        print("every spec is at 3/3: nothing to plan (ralph run verifies them all once more)")
        return 0
    for item in data["include"]:
        print(printable(f"{item['spec']}  {item['done_count']}/3  branch {item['branch']}"))
    return 0
