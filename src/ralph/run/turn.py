"""What one rotation is asked (`Turn`), where it works (`Place`) and what it returns to the
scheduler that called it (`Outcome`): plain values, passed and returned."""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from ralph.agents.command import CommandAgent
from ralph.agents.result import AgentResult
from ralph.checks.records import JudgeSpent
from ralph.rules.budget import LatencyBudget
from ralph.rules.prompt import Mode
from ralph.rules.spec import Spec
from ralph.rules.state import State
from ralph.run.question import QuestionAndAnswer
from ralph.run.tree import Taken
from ralph.store.lanenotes import LaneNotes
from ralph.store.rotationlog import RotationLog
from ralph.store.snapshot import Changes


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
    iteration: int  # its number, already taken (and saved) by the scheduler
    state: State  # the run's state as the rotation starts: read, never written
    answer: QuestionAndAnswer | None  # the person's answer it delivers, if any
    first: int  # the last rotation number before this run: its place in the run's budget
    limit: int  # the last rotation number this run allows
    tick: float  # when the scheduler began its work on this rotation (the latency budget)
    stop: threading.Event  # set: stop the agent now (`ralph cancel --now`, Ctrl-C)


@dataclass(frozen=True)
class Outcome:
    """What one rotation returns for its scheduler to fold into the run's state (rules in
    run/fold.py): every value the run goes on with travels here, not through shared
    attributes."""

    turn: Turn
    place: Place
    signal: str  # as recorded: DONE, CONTINUE, ..., REFUSED, ERROR, NONE
    note: str | None
    taken: Taken  # the tree after it: the files it changed, or why no snapshot was taken
    interrupted: bool  # Ctrl-C or `ralph cancel --now`
    result: AgentResult  # the agent's process, usage, limits and fault (for the pool)
    spec_hash: str | None  # the spec file as the rotation left it
    track: Callable[[State], State]  # what the gate keeps of the spec (front matter, tests)
    judged: tuple[JudgeSpent, ...]  # what a semantic check's judge spent
    log: RotationLog
    budget: LatencyBudget
    started: float  # time.time() when the agent was started
    own: float  # seconds of ralph's own work so far
    checks_s: float = 0.0  # seconds ralph's checks took (the DONE gate)

    @property
    def spec(self) -> str:
        return self.turn.spec.path

    @property
    def mode(self) -> Mode:
        return self.turn.mode

    @property
    def agent(self) -> str:
        return self.turn.agent.name

    @property
    def changes(self) -> Changes:
        return self.taken.changes

    @property
    def changed(self) -> bool:
        return bool(self.taken.changes)
