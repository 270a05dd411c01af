"""checks/acceptors.py: every kind of change that waits for a person, accepted by its kind."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ralph.checks.acceptance import Scope
from ralph.checks.acceptors import accept_all, acceptors, pending_all
from ralph.rules.counts.specset import front_digest
from ralph.rules.counts.state import SpecState, State
from ralph.rules.evidence.testcounts import TestCounts as Counts
from ralph.specs.discovery import discover_specs
from ralph.store.disk.workspace import Workspace


def test_every_kind_in_the_order_ralph_accept_shows_them() -> None:
    kinds = [a.kind for a in acceptors()]
    assert kinds == [
        "settings",
        "sources",
        "specs",
        "front matter",
        "ignore rules",
        "tests",
        "test configuration",
        "test counts",
    ]


def test_each_item_is_accepted_by_the_acceptor_of_its_kind(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    (root / "PROMPT.md").write_text("---\ntest_command: t\n---\n# a\n")
    Workspace(root).ensure()
    row = SpecState(
        "PROMPT.md",
        agent_front_matter=front_digest("test_command: t\n"),
        tests=Counts(1, 0, 0, ("pytest",)),
        best_tests=Counts(3, 0, 0, ("pytest",)),
    )
    state = State(specs=(row,))
    scope = Scope(root, Workspace(root).dir, tuple(discover_specs(root)))
    waiting = pending_all(scope, state)
    assert [i.kind for i in waiting] == ["front matter", "test counts"]
    only_counts = accept_all(scope, state, [i for i in waiting if i.kind == "test counts"])
    assert [i.kind for i in pending_all(scope, only_counts)] == ["front matter"]
    assert pending_all(scope, accept_all(scope, state, waiting)) == []
