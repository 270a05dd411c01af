"""checks/sourcesaccept.py: a package source changed during a run waits for a person."""

from __future__ import annotations

from pathlib import Path

from ralph.checks.acceptance import Scope
from ralph.checks.sourcesaccept import SourcesAcceptor
from ralph.rules.counts.state import State
from ralph.store.disk.workspace import Workspace
from ralph.store.environments import pkgsources


def test_a_source_added_during_a_run_is_shown_and_taken(tmp_path: Path) -> None:
    Workspace(tmp_path).ensure()
    (tmp_path / "requirements.txt").write_text("attrs\n")
    assert pkgsources.begin(tmp_path) is None  # a first run: what is there is the person's
    scope, acceptor = Scope(tmp_path, tmp_path), SourcesAcceptor()
    assert acceptor.pending(scope, State()) == []
    (tmp_path / "wheels").mkdir()
    (tmp_path / "wheels" / "x-1-py3-none-any.whl").write_bytes(b"a wheel")
    (tmp_path / "requirements.txt").write_text("attrs\n-f wheels\n")  # the agent's edit
    items = acceptor.pending(scope, State())
    assert len(items) == 1 and items[0].kind == "sources"
    assert "+ requirements.txt: -f wheels" in items[0].lines
    assert any(
        line.startswith("+     wheels/x-1-py3-none-any.whl sha256:") for line in items[0].lines
    )
    acceptor.accept(scope, State(), items)
    assert acceptor.pending(scope, State()) == []
    # control: a dependency by name is no source: nothing waits
    (tmp_path / "requirements.txt").write_text("attrs\n-f wheels\nisodate\n")
    assert acceptor.pending(scope, State()) == []


def test_a_source_changed_after_it_was_shown_is_not_taken(tmp_path: Path) -> None:
    Workspace(tmp_path).ensure()
    pkgsources.begin(tmp_path)
    (tmp_path / "requirements.txt").write_text("./a.whl\n")
    scope, acceptor = Scope(tmp_path, tmp_path), SourcesAcceptor()
    items = acceptor.pending(scope, State())
    (tmp_path / "requirements.txt").write_text("./b.whl\n")  # changed while the person read
    acceptor.accept(scope, State(), items)
    assert acceptor.pending(scope, State()) != []
