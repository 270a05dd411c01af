"""The CI fan-out recipe (docs/how-to/ci-lanes.md): `ralph plan --json` as a job matrix, a
job per spec running `ralph run --spec PATH` on its lane branch and pushing it, a last job merging
the pushed lanes (docs/ci/merge-lanes.sh) and verifying on the merged tree; all against a local
bare repository standing in for the remote."""

from __future__ import annotations

import json
from pathlib import Path

import yaml

DOCS = Path(__file__).parent.parent / "docs"


def test_the_workflow_file_is_what_the_docs_describe() -> None:
    flow = yaml.safe_load((DOCS / "ci" / "ralph-lanes.yml").read_text())
    assert list(flow["jobs"]) == ["plan", "lane", "merge"]
    steps = json.dumps(flow["jobs"])
    assert "ralph plan --json" in steps
    assert 'ralph run --headless --spec \\"${{ matrix.spec }}\\"' in steps
    assert "merge-lanes.sh" in steps
    assert "ralph-lanes.yml" in (DOCS / "how-to" / "ci-lanes.md").read_text()
