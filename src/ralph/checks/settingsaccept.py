"""The settings in `ralph accept`: an edit of ralph.yaml made during a run waits for a person
(store/person/settings.py); accepting it makes it the settings the next run uses."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.checks.acceptance import Pending, Scope
from ralph.rules.counts.state import State
from ralph.rules.environment.settings import diff_lines
from ralph.store.person import settings


class SettingsAcceptor:
    """ralph.yaml changed during a run: runs use the settings a person last accepted until one
    accepts the change (or edits the file between runs)."""

    kind = "settings"

    def pending(self, scope: Scope, state: State) -> list[Pending]:
        held = settings.pending(scope.root)
        if held is None:
            return []
        before, after = held
        lines = diff_lines(before, after, settings.CONFIG_FILE)
        summary = f"{settings.CONFIG_FILE}, changed during a run (runs use it once accepted)"
        return [Pending(self.kind, None, summary, tuple(lines), settings.key(after))]

    def accept(self, scope: Scope, state: State, items: Sequence[Pending]) -> State:
        for item in items:
            settings.accept(scope.root, item.key)
        return state
