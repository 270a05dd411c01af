"""checks/ignoreaccept.py: ignore rules changed since a person set them wait for a person."""

from __future__ import annotations

import subprocess
from pathlib import Path

from ralph.checks.acceptance import Scope
from ralph.checks.ignoreaccept import IgnoreRulesAcceptor
from ralph.rules.counts.state import State
from ralph.store.disk.private import ensure_store


def test_a_rule_that_can_hide_source_waits_until_accepted(tmp_path: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    ensure_store(tmp_path)  # ralph works in this project: its store is there
    scope, acceptor = Scope(tmp_path, tmp_path), IgnoreRulesAcceptor()
    assert acceptor.pending(scope, State()) == []  # the first look records them
    (tmp_path / ".gitignore").write_text("node_modules/\n")  # scaffolding hides no source
    assert acceptor.pending(scope, State()) == []
    (tmp_path / ".gitignore").write_text("node_modules/\n*.py\n")
    items = acceptor.pending(scope, State())
    assert len(items) == 1 and any("*.py" in line for line in items[0].lines)
    (tmp_path / ".gitignore").write_text("*.py\n*.txt\n")  # changed again after it was shown
    acceptor.accept(scope, State(), items)
    assert acceptor.pending(scope, State())  # not what the person saw: not taken
    acceptor.accept(scope, State(), acceptor.pending(scope, State()))
    assert acceptor.pending(scope, State()) == []
