"""What one rotation is asked (`Turn`), where it works (`Place`), what its interruptible part
leaves (`Attempt`; a final verification's: `Trial`) and what it returns to the scheduler that
called it (`Outcome`, a final verification's too): plain values, passed and returned."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ralph.agents.command import CommandAgent
from ralph.agents.result import AgentResult
from ralph.checks.records import JudgeSpent
from ralph.rules.agents.budget import LatencyBudget
from ralph.rules.counts import verification as fv
from ralph.rules.counts.frontmark import FrontSeen
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import State
from ralph.rules.evidence.testcounts import TestCounts
from ralph.rules.text.prompt import Mode
from ralph.run.question import QuestionAndAnswer
from ralph.run.tree import Taken
from ralph.store.live.lanenotes import LaneNotes
from ralph.store.records.rotationlog import RotationLog
from ralph.store.snapshots.snapshot import Changes


@dataclass(frozen=True)
class Place:
    """Where a rotation works: the project's own tree, or a lane's worktree, with the files
    ralph keeps for it there and where its news go (run.json, or the lane's entry in it)."""

    root: Path
    prompt_file: Path
    current_log: Path
    note: Callable[..., None]  # run.json gets the rotation's news
    record_agent: Callable[[int], None]  # the agent's PID, for a run taking over after a crash
    lane: str | None = None  # the lane's name (its worktree's folder); None: the project's tree
    notes: LaneNotes | None = None  # a lane's copy of the run's handoffs, guardrails, question


@dataclass(frozen=True)
class Turn:
    """What one rotation is asked to do: every input explicit."""

    spec: Spec
    mode: Mode
    agent: CommandAgent
    judge: CommandAgent  # judges its semantic checks: another agent than `agent`, if any
    iteration: int  # its number, already taken (and saved) by the scheduler
    state: State  # the run's state as the rotation starts: read, never written
    answer: QuestionAndAnswer | None  # the person's answer it delivers, if any
    first: int  # the last rotation number before this run: its place in the run's budget
    limit: int  # the last rotation number this run allows
    tick: float  # when the scheduler began its work on this rotation (the latency budget)
    stop: threading.Event  # set: stop the agent now (`ralph cancel --now`, Ctrl-C)


@dataclass(frozen=True)
class Attempt:
    """A rotation up to its verdict, the part a Ctrl-C may stop: its prompt written, the
    agent run, the DONE checks run on the tree it left. Nothing of it is in the state yet."""

    turn: Turn
    signal: str  # as the agent and the DONE gate left it: DONE, CONTINUE, ..., REFUSED, ERROR
    note: str | None
    interrupted: bool  # Ctrl-C or `ralph cancel --now`
    result: AgentResult  # the agent's process, usage, limits and fault (for the pool)
    judged: tuple[JudgeSpent, ...]  # what a semantic check's judge spent
    halted: str | None  # its checks could not run, nobody's fault in the tree: the run's end
    counts: TestCounts | None  # the test counts of its DONE's checks
    best: bool  # ...and they hold the best run (they did not fall behind)
    handoff: Path
    log: RotationLog
    budget: LatencyBudget
    started: float  # time.time() when the agent was started
    own: float  # seconds of ralph's own work so far
    checks_s: float  # seconds ralph's checks took (the DONE gate)


@dataclass(frozen=True)
class Outcome:
    """What one rotation returns for its scheduler to fold into the run's state (rules in
    run/fold.py): values only, so the fold is pure; the files its attempt leaves are written
    after the fold, in one step (run/ledger.py)."""

    spec: str
    mode: Mode
    agent: str  # the agent's name
    iteration: int
    signal: str  # as recorded: DONE, CONTINUE, ..., REFUSED, ERROR, NONE
    note: str | None
    interrupted: bool  # Ctrl-C or `ralph cancel --now`
    result: AgentResult  # the agent's process, usage, limits and fault (for the pool)
    taken: Taken  # the tree after it: the files it changed, or why no snapshot was taken
    spec_hash: str | None  # the spec file as the rotation left it
    front: FrontSeen | None  # the spec's front matter as it left it (None: unreadable)
    lane: str | None  # the lane it ran in; None: the project's own tree
    ended: float  # the run's clock (Shared.clock) as it was settled: the breaker's
    judged: tuple[JudgeSpent, ...] = ()  # what a semantic check's judge spent
    halted: str | None = None  # its checks could not run for a reason not the agent's
    counts: TestCounts | None = None  # the test counts of its DONE's checks
    best: bool = False  # ...and they hold the best run (they did not fall behind)
    own: float = 0.0  # seconds of ralph's own work so far (its latency budget)
    seconds: float = 0.0  # from the agent's start to the tree taken after it
    # a final verification's (spec "(all specs)", mode VERIFY): ralph's verdict on the
    # verifier's answer, its changes and ralph's own checks; None: a spec's rotation
    verdict: fv.Verdict | None = None

    @property
    def changes(self) -> Changes:
        return self.taken.changes

    @property
    def changed(self) -> bool:
        return bool(self.taken.changes)


@dataclass(frozen=True)
class Trial:
    """A final verification up to its verdict, the part a Ctrl-C may stop: its prompt
    written, the verifier run, ralph's own checks run on the tree it left."""

    iteration: int
    attempt: int  # its number among the failures in a row (1: the first try)
    agent: str  # the verifier's name
    specs: tuple[str, ...]
    result: AgentResult
    tag: str | None  # the verifier's answer (VERIFY_PASS, VERIFY_FAIL), None without one
    failed_checks: tuple[str, ...]  # what ralph's own checks found
    judged: tuple[JudgeSpent, ...]  # what a semantic check's judge spent
    interrupted: bool  # Ctrl-C or `ralph cancel --now`: no verdict either way
    report: Path  # the verifier's report (its handoff)
    log: RotationLog
    budget: LatencyBudget
    started: float  # time.time() when the verifier was started
    checks_s: float  # seconds ralph's own checks took
    first: int  # the last rotation number before this run: its place in the run's budget
    allowed: int  # this run's rotations allowed (Shared.budget)
