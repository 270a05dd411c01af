"""Every kind of change that waits for a person's say (the registry of `ralph accept`), and
accepting them all at once."""

from __future__ import annotations

from collections.abc import Sequence

from ralph.checks.acceptance import Acceptor, FrontMatterAcceptor, Pending, Scope
from ralph.checks.evidence import CountsAcceptor
from ralph.checks.ignoreaccept import IgnoreRulesAcceptor
from ralph.checks.settingsaccept import SettingsAcceptor
from ralph.checks.sourcesaccept import SourcesAcceptor
from ralph.checks.specset import SpecSetAcceptor
from ralph.checks.testconfig import ConfigAcceptor
from ralph.checks.testguard import TestAcceptor
from ralph.rules.counts.state import State


def acceptors() -> list[Acceptor]:
    """Every kind of change a person accepts, in the order `ralph accept` shows them."""
    return [
        SettingsAcceptor(),
        SourcesAcceptor(),
        SpecSetAcceptor(),
        FrontMatterAcceptor(),
        IgnoreRulesAcceptor(),
        TestAcceptor(),
        ConfigAcceptor(),
        CountsAcceptor(),
    ]


def pending_all(scope: Scope, state: State) -> list[Pending]:
    return [item for acceptor in acceptors() for item in acceptor.pending(scope, state)]


def accept_all(scope: Scope, state: State, items: Sequence[Pending]) -> State:
    """Accept `items`, each by the acceptor of its kind; the new state."""
    for acceptor in acceptors():
        mine = [item for item in items if item.kind == acceptor.kind]
        if mine:
            state = acceptor.accept(scope, state, mine)
    return state
