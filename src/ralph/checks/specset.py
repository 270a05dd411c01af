"""The specs a person wrote, on disk: recording them at the start of a run and accepting an
agent's change to them (`ralph accept`). The rules are in rules/counts/specset.py."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

from ralph.checks.acceptance import Pending, Scope
from ralph.checks.authorship import front_digests
from ralph.rules.counts import specset
from ralph.rules.counts.state import State


def recorded(state: State) -> dict[str, str] | None:
    return None if state.person_specs is None else dict(state.person_specs)


def take_person_specs(
    state: State, root: Path, changed: tuple[str, ...] | None
) -> tuple[State, list[str]]:
    """At the start of a run: the record with what a person changed while no run was running
    (`changed`, from the comparison with the last run's snapshot), and what still waits."""
    disk = front_digests(root)
    record = specset.take_person_changes(recorded(state), disk, changed)
    state = replace(state, person_specs=tuple(sorted(record.items())))
    return state, specset.waiting(record, disk)


def specs_refusal(record: specset.Digests | None, root: Path, active: str) -> str | None:
    """Why a DONE is refused while the person's specs wait for a person, or None."""
    held = specset.waiting(record, front_digests(root), active)
    return f"the specs wait for a person: {specset.summary(held)}" if held else None


class SpecSetAcceptor:
    """A spec removed or renamed, or another spec's front matter changed, during a run."""

    kind = "specs"

    def pending(self, scope: Scope, state: State) -> list[Pending]:
        record = recorded(state)
        disk = front_digests(scope.root)
        out: list[Pending] = []
        for line in specset.waiting(record, disk):
            path = line.split(" ", 1)[0].rstrip(":")
            row = state.get(path)
            if row is not None and row.agent_front_matter == disk.get(path):
                continue  # the agent's own spec: the front matter acceptor shows it
            if scope.wanted(path):
                out.append(Pending(self.kind, None, line, key=path))
        return out

    def accept(self, scope: Scope, state: State, items: Sequence[Pending]) -> State:
        disk = front_digests(scope.root)
        record = specset.accept(recorded(state), disk, tuple(item.key for item in items))
        return replace(state, person_specs=tuple(sorted(record.items())))
