"""The ignore rules in `ralph accept`: what differs from the rules a person set (recorded in
`.ralph/ignore-rules.json`, store/snapshots/ignorebase.py), and recording the rules on disk as
theirs."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.checks.acceptance import Pending, Scope
from ralph.errors import StateError
from ralph.rules.counts.state import State
from ralph.store.repository import git
from ralph.store.snapshots import ignorebase


class IgnoreRulesAcceptor:
    """Rule changes that can hide source files: DONEs are refused until a person accepts them
    (or restores the rule files)."""

    kind = "ignore rules"

    def pending(self, scope: Scope, state: State) -> list[Pending]:
        repo = git.find_repo(scope.root, scope.git)  # its git held by the run's lock
        try:
            lines = ignorebase.pending_ignore_changes(scope.root, repo)
        except StateError as exc:  # a damaged record: accepting records the rules anew
            lines = [exc.message]
        if not lines:
            return []
        key = ignorebase.rules_key(ignorebase.current_rules(scope.root, repo))
        summary = "the ignore rules, changed since a person set them (they decide what is compared)"
        return [Pending(self.kind, None, summary, tuple(lines), key)]

    def accept(self, scope: Scope, state: State, items: Sequence[Pending]) -> State:
        repo = git.find_repo(scope.root, scope.git)
        for item in items:
            ignorebase.accept_ignore_rules(scope.root, item.key, repo)
        return state
