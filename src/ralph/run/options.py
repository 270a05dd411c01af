"""What a run was asked to do: the options `ralph run` passes to the loop. Each fact once: the
run's options are `settings` (run/settings.py), what only ralph.yaml says is read from `config`;
the other fields are what neither holds: the pool built from them, what the command wires in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from ralph.agents.member import Member
from ralph.process.launcher import PLAIN, Launcher
from ralph.rules.agents.pool import PoolPolicy
from ralph.run.escalation import Decide
from ralph.run.observers import Observers
from ralph.run.settings import RunSettings

if TYPE_CHECKING:
    from ralph.run.facts import Fact
    from ralph.store.person.config import RalphConfig


@dataclass(frozen=True)
class RunOptions:
    root: Path
    pool: tuple[Member, ...]  # one agent or more, each with its own limits
    settings: RunSettings  # the run's options, resolved: `opts.settings.max_cost`
    # ralph.yaml as a person accepted it, for what only it says: `opts.config.test_command`.
    # A key a setting declares is read from `settings`, never here (tests/run/test_options.py).
    config: RalphConfig
    policy: PoolPolicy = field(default_factory=PoolPolicy)
    # Files ralph itself writes into the tree at the end of a run (--report junit=, json=):
    # the next run must not take them for changes made while ralph was not running.
    own_files: tuple[str, ...] = ()
    decide: Decide | None = None  # asks the user when the breaker opens; None: abort
    # The observer plugins (run/observers.py), ralph's webhook among them: hear every event
    # and record through the sink, give the agent its trace context. None: no plugin
    # observes, the run calls nothing.
    observers: Observers | None = None
    # Sees every fact once it is recorded, in the run's thread: an in-process watcher passed
    # in as a value (the tests' seam, as displays are); None: none.
    watch: Callable[[Fact], None] | None = None
    # Values no output of the run may show (the webhook URL's parts): redacted like the
    # agents' own secrets from every log, record and report.
    secrets: frozenset[str] = frozenset()
    # How the run's processes start: where (its sandbox, its rules for the environment, handed
    # to every agent's, judge's and check's request) and what runs the checks' commands.
    launcher: Launcher = PLAIN
    # `--continue`: a run that was killed goes on as this one (its records, its numbers)
    continues: bool = False

    @property
    def label(self) -> str:
        return ", ".join(m.name for m in self.pool)

    @property
    def test_globs(self) -> tuple[str, ...] | None:
        """Which files are tests (ralph.yaml's tests:; None: the defaults)."""
        paths = self.config.tests.paths
        return None if paths is None else tuple(paths)
