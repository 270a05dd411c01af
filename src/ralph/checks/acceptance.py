"""What waits for a person's say, and how a person accepts it: the extension point of
`ralph accept` (and of the escalation's Accept).

An agent may change what decides the verdict (a spec's checks, the tests, the ignore rules),
but the change counts only once a person accepts it. Each kind of such change has an
`Acceptor`: it lists what is pending as `Pending` items (lines a person can read) and accepts
them. Acceptors work on the saved state they are given and on their own files under .ralph/;
they return the state with the acceptance in it, and the caller saves it once.

Adding a kind: write an acceptor (a class with `kind`, `pending` and `accept`) and add it to
`acceptors()` in checks/acceptors.py.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Protocol

from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import State
from ralph.store.repository.git import GitLock


@dataclass(frozen=True)
class Pending:
    """One change that waits for a person: what it is, the spec it concerns (None: the whole
    project), and lines that show it."""

    kind: str
    spec: str | None
    summary: str
    lines: tuple[str, ...] = ()
    key: str = ""  # what the acceptor needs to accept exactly this (opaque to others)


@dataclass(frozen=True)
class Scope:
    """Where acceptors look: the project, its specs on disk and the saved state."""

    root: Path
    state_dir: Path
    specs: tuple[Spec, ...] = field(default_factory=tuple)
    only: str | None = None  # one spec's path (`--spec`)
    test_globs: tuple[str, ...] | None = None  # which files are tests (None: the defaults)
    # held by every git command of the acceptors: a run's own (`Shared.git`) during a run,
    # so an Accept in a lanes run never runs git beside a lane's; `ralph accept` makes one
    git: GitLock = field(default_factory=GitLock, compare=False, repr=False)

    def wanted(self, spec: str | None) -> bool:
        """Is an item about `spec` (None: the whole project, which concerns every spec) in?"""
        return self.only is None or spec is None or spec == self.only


class Acceptor(Protocol):
    kind: str

    def pending(self, scope: Scope, state: State) -> list[Pending]:
        """What waits for a person now (nothing is changed)."""
        ...

    def accept(self, scope: Scope, state: State, items: Sequence[Pending]) -> State:
        """Accept `items` (this acceptor's own, as `pending` listed them); the new state."""
        ...


class FrontMatterAcceptor:
    """Front matter an agent wrote: its DONEs are refused until a person accepts it (or edits
    it, or restores it)."""

    kind = "front matter"

    def pending(self, scope: Scope, state: State) -> list[Pending]:
        from ralph.checks.authorship import agent_front

        out: list[Pending] = []
        for spec in scope.specs:
            row = state.get(spec.path)
            if row is None or not scope.wanted(spec.path):
                continue
            front = agent_front(spec, row.agent_front_matter)
            if front is None:
                continue
            lines = tuple(front.splitlines()) or ("(no front matter: the agent removed it)",)
            summary = f"{spec.path}: the front matter (its checks) as an agent last wrote it"
            out.append(Pending(self.kind, spec.path, summary, lines, row.agent_front_matter or ""))
        return out

    def accept(self, scope: Scope, state: State, items: Sequence[Pending]) -> State:
        from ralph.rules.counts.specset import accept

        for item in items:
            row = state.get(item.spec or "")
            if row is not None and row.agent_front_matter == item.key:
                state = state.with_spec(replace(row, agent_front_matter=None))
                if state.person_specs is not None:  # the person's specs hold it from now on
                    record = accept(dict(state.person_specs), {row.path: item.key}, (row.path,))
                    state = replace(state, person_specs=tuple(sorted(record.items())))
        return state
