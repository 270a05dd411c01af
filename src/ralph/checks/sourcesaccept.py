"""The package sources in `ralph accept`: a local source of packages the tree declares (a path,
a wheel, a find-links or index line, package-manager settings in the tree) that changed during a
run waits for a person (store/environments/pkgsources.py); accepting it lets the checks'
environment use it."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.checks.acceptance import Pending, Scope
from ralph.rules.counts.state import State
from ralph.rules.environment.settings import visible
from ralph.store.environments import pkgsources
from ralph.store.person import settings


class SourcesAcceptor:
    """Package sources changed during a run: no DONE counts until a person accepts them."""

    kind = "sources"

    def pending(self, scope: Scope, state: State) -> list[Pending]:
        held = pkgsources.pending(scope.root)
        if held is None:
            return []
        before, after = held
        old, new = set(before.splitlines()), set(after.splitlines())
        lines = [f"- {visible(line)}" for line in before.splitlines() if line not in new]
        lines += [f"+ {visible(line)}" for line in after.splitlines() if line not in old]
        summary = "package sources the tree declares, changed during a run (used once accepted)"
        return [Pending(self.kind, None, summary, tuple(lines), settings.key(after))]

    def accept(self, scope: Scope, state: State, items: Sequence[Pending]) -> State:
        for item in items:
            pkgsources.accept(scope.root, item.key)
        return state
