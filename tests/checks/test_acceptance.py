"""checks/acceptance.py: what waits for a person's say; front matter an agent wrote."""

from __future__ import annotations

import hashlib
from pathlib import Path

from ralph.checks.acceptance import FrontMatterAcceptor, Scope
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.specset import front_digest
from ralph.rules.counts.state import SpecState, State

FRONT = "test_command: pytest -q\n"
A = "specs/a.spec.md"


def spec(text: str, path: str = A) -> Spec:
    return Spec(path, text, hashlib.sha256(text.encode()).hexdigest())


def test_a_scope_wants_its_spec_and_the_whole_project() -> None:
    everything, one = Scope(Path(), Path()), Scope(Path(), Path(), only=A)
    assert everything.wanted("specs/b.spec.md") and everything.wanted(None)
    assert one.wanted(A) and one.wanted(None) and not one.wanted("specs/b.spec.md")


def test_front_matter_an_agent_wrote_waits_until_a_person_accepts_it() -> None:
    mark = front_digest(FRONT)
    state = State(
        specs=(SpecState(A, agent_front_matter=mark), SpecState("specs/b.spec.md")),
        person_specs=((A, front_digest("test_command: old\n")),),
    )
    specs = (spec(f"---\n{FRONT}---\n# a\n"), spec("# b\n", "specs/b.spec.md"))
    scope = Scope(Path(), Path(), specs=specs)
    acceptor = FrontMatterAcceptor()
    items = acceptor.pending(scope, state)
    assert [(i.spec, i.lines, i.key) for i in items] == [(A, ("test_command: pytest -q",), mark)]
    assert acceptor.pending(Scope(Path(), Path(), scope.specs, only="specs/b.spec.md"), state) == []
    accepted = acceptor.accept(scope, state, items)
    row = accepted.get(A)
    assert row is not None and row.agent_front_matter is None
    assert accepted.person_specs == ((A, mark),)  # the person's specs hold it from now on
    assert acceptor.pending(scope, accepted) == []


def test_front_matter_a_person_changed_since_waits_for_nothing() -> None:
    state = State(specs=(SpecState(A, agent_front_matter=front_digest("test_command: x\n")),))
    scope = Scope(Path(), Path(), specs=(spec(f"---\n{FRONT}---\n# a\n"),))
    assert FrontMatterAcceptor().pending(scope, state) == []


def test_front_matter_the_agent_removed_is_shown_as_removed() -> None:
    state = State(specs=(SpecState(A, agent_front_matter=front_digest(None)),))
    scope = Scope(Path(), Path(), specs=(spec("# a\n"),))
    items = FrontMatterAcceptor().pending(scope, state)
    assert [i.lines for i in items] == [("(no front matter: the agent removed it)",)]
