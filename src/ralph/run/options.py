"""What a run was asked to do: the options `ralph run` passes to the loop."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from ralph.agents.member import Member
from ralph.process.request import OPEN, Confinement
from ralph.rules import breaker as breakers
from ralph.rules.budget import DEFAULT_BUDGET_MS
from ralph.rules.convergence import DEFAULT_PATIENCE
from ralph.rules.pool import PoolPolicy
from ralph.run.escalation import Decide
from ralph.run.facts import Fact


@dataclass(frozen=True)
class RunOptions:
    root: Path
    pool: tuple[Member, ...]  # one agent or more, each with its own limits
    max_iterations: int
    policy: PoolPolicy = field(default_factory=PoolPolicy)
    max_cost: float | None = None  # USD this run may spend, as the agents report it
    max_tokens: int | None = None  # tokens (in + out) this run may use
    # Files ralph itself writes into the tree at the end of a run (--junit, --report-json):
    # the next run must not take them for changes made while ralph was not running.
    own_files: tuple[str, ...] = ()
    final_verification: bool = True
    max_verification_failures: int = 3
    test_command: str | None = None  # run by ralph itself in the final verification
    test_timeout: float | None = 1800.0
    breaker_threshold: int = breakers.DEFAULT_THRESHOLD
    breaker_cooldown: float = breakers.DEFAULT_COOLDOWN
    decide: Decide | None = None  # asks the user when the breaker opens; None: abort
    latency_budget_ms: float = DEFAULT_BUDGET_MS
    patience: int = DEFAULT_PATIENCE  # REVIEW rotations in a row that changed files, then ask
    test_globs: tuple[str, ...] | None = None  # which files are tests (None: the defaults)
    only: tuple[str, ...] = ()  # --spec: the specs this run works on; () = every spec
    parallel: int = 1  # lanes at once; 1 works in the project's own tree, one spec at a time
    # Sees the facts no display gets (a question, a wait for a limit): the webhook's ears.
    # Whatever it does or raises never changes the run.
    watch: Callable[[Fact], None] | None = None
    # Values no output of the run may show (the webhook URL's parts): redacted like the
    # agents' own secrets from every log, record and report.
    secrets: frozenset[str] = frozenset()
    # Where every agent, judge and check command of the run starts: its sandbox and its rules
    # for the environment (process/request.py), handed to each request.
    confined: Confinement = OPEN

    @property
    def label(self) -> str:
        return ", ".join(m.name for m in self.pool)
