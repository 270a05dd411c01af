"""checks/specset.py: the specs a person wrote; a DONE waits while an agent removed or changed
another spec, until a person accepts it."""

from __future__ import annotations

from pathlib import Path

from ralph.checks.acceptance import Scope
from ralph.checks.specset import SpecSetAcceptor, recorded, specs_refusal, take_person_specs
from ralph.rules.counts.specset import front_digest
from ralph.rules.counts.state import SpecState, State

A, B = "specs/a.spec.md", "specs/b.spec.md"
CHANGED = "its front matter (its checks) was changed during a run"


def write(root: Path, files: dict[str, str]) -> None:
    for path, text in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_text(text)


def test_a_removed_or_changed_other_spec_refuses(tmp_path: Path) -> None:
    write(tmp_path, {A: "---\ntest_command: t\n---\n# a\n", B: "---\ntest_command: t\n---\n"})
    state, waiting = take_person_specs(State(), tmp_path, None)  # the first run takes them
    record = recorded(state)
    assert waiting == [] and record is not None and set(record) == {A, B}
    assert specs_refusal(record, tmp_path, A) is None
    write(tmp_path, {A: "# a: the active spec's own change is its own guard's\n"})
    assert specs_refusal(record, tmp_path, A) is None
    write(tmp_path, {B: "# b\n"})
    why = specs_refusal(record, tmp_path, A)
    assert why == f"the specs wait for a person: {B}: {CHANGED}"
    (tmp_path / B).unlink()
    assert specs_refusal(record, tmp_path, A) == (
        f"the specs wait for a person: {B} was removed or renamed during a run"
    )
    assert specs_refusal(None, tmp_path, A) is None  # nothing recorded yet


def test_what_a_person_changed_between_runs_is_taken(tmp_path: Path) -> None:
    write(tmp_path, {A: "# a\n", B: "# b\n"})
    state, _ = take_person_specs(State(), tmp_path, None)
    (tmp_path / B).unlink()
    _, waiting = take_person_specs(state, tmp_path, None)  # unknown who: it waits
    assert waiting == [f"{B} was removed or renamed during a run"]
    taken, waiting = take_person_specs(state, tmp_path, (B,))  # changed while no run ran
    assert waiting == [] and recorded(taken) == {A: front_digest(None)}


def test_the_acceptor_shows_and_takes_the_change(tmp_path: Path) -> None:
    write(tmp_path, {A: "# a\n", B: "---\ntest_command: t\n---\n"})
    state, _ = take_person_specs(State(specs=(SpecState(A), SpecState(B))), tmp_path, None)
    write(tmp_path, {B: "# b\n"})
    scope = Scope(tmp_path, tmp_path / ".ralph")
    acceptor = SpecSetAcceptor()
    items = acceptor.pending(scope, state)
    assert [(i.key, i.summary) for i in items] == [(B, f"{B}: {CHANGED}")]
    assert acceptor.pending(Scope(tmp_path, tmp_path, only=A), state) == []  # --spec a
    # an agent's own spec is the front matter acceptor's to show
    own = state.with_spec(SpecState(B, agent_front_matter=front_digest(None)))
    assert acceptor.pending(scope, own) == []
    accepted = acceptor.accept(scope, state, items)
    assert acceptor.pending(scope, accepted) == []
    assert specs_refusal(recorded(accepted), tmp_path, A) is None
