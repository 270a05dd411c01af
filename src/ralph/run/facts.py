"""What the run records but no display shows: plain frozen records for the recorder, no I/O.

They travel with the display events through the run's one `emit`; displays never receive them
(their output stays as it was), the recorder turns them into the worklog, progress.md,
errors.log and handoff notes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ralph.agents.result import AgentFault, LimitInfo
from ralph.checks.records import GATE_RECORDS, GateRecord
from ralph.rules.text.prompt import Mode


@dataclass(frozen=True)
class WaitStarted:
    until: float
    reason: str


@dataclass(frozen=True)
class SpecBlocked:
    spec: str
    reason: str


@dataclass(frozen=True)
class GateBypassed:
    iteration: int
    spec: str


@dataclass(frozen=True)
class AnswerDelivered:
    archived: str  # where the answered question went, relative to the project


@dataclass(frozen=True)
class RotationRecorded:
    """One spec's rotation, once its outcome is saved in the state."""

    iteration: int
    spec: str
    mode: Mode
    agent: str
    signal: str
    note: str | None
    files_changed: int
    paths: tuple[str, ...]  # the changed paths the worklog lists (none when over budget)
    done_count: int
    downgraded: tuple[str, ...]
    agent_s: float
    checks_s: float  # ralph's checks of its DONE (0 without one)
    seconds: float  # the whole rotation, from the agent's start to its outcome recorded
    overhead_ms: float
    log: str  # the rotation's history log, relative to the project
    usage: dict[str, Any]  # the worklog's usage keys
    fault: AgentFault | None
    stderr: tuple[str, ...] = ()  # a failed rotation's last stderr lines, for its handoff


@dataclass(frozen=True)
class BudgetSpent:
    iteration: int
    budget: dict[str, Any]  # LatencyBudget.to_json()


@dataclass(frozen=True)
class BreakerChanged:
    before: str
    after: str
    reason: str
    failures: int
    reasons: tuple[str, ...]
    lane: str | None = None  # the spec whose lane's own breaker it is; None: the run's


@dataclass(frozen=True)
class Reconciled:
    """A run took over from a killed one whose records stopped short of state.json (the
    truth): the state's counters, recorded, and what the records told of those that differ."""

    counts: dict[str, int]
    told: dict[str, int]


@dataclass(frozen=True)
class Escalated:
    key: str  # the subject as the worklog records it
    subject: str
    choice: str
    failures: int
    reasons: tuple[str, ...]
    kind: str = "breaker"  # or "convergence": a spec whose REVIEWs keep changing files


@dataclass(frozen=True)
class LimitsSeen:
    """What an agent's CLI said about its limit windows in a rotation (`LimitInfo`s)."""

    agent: str
    limits: tuple[LimitInfo, ...]


@dataclass(frozen=True)
class QuestionAsked:
    spec: str


@dataclass(frozen=True)
class VerificationStarted:
    attempt: int
    iteration: int
    agent: str


@dataclass(frozen=True)
class VerificationAnswered:
    attempt: int
    iteration: int
    tag: str | None
    failure: str | None


@dataclass(frozen=True)
class VerificationEnded:
    attempt: int
    iteration: int
    passed: bool
    summary: str
    reasons: tuple[str, ...]
    files_changed: int
    downgraded: tuple[str, ...]
    failures: int  # consecutive failures, this one included
    log: str  # the verifier's history log, relative to the project
    report: str  # the verifier's report, relative to the project
    specs: tuple[str, ...]  # whose handoffs hear of a failure
    usage: dict[str, object] | None = None  # the verifier's tokens and cost (usage_fields)
    agent_s: float = 0.0  # the verifier's own time
    checks_s: float = 0.0  # the checks ralph ran itself (the test command, every spec's)
    seconds: float = 0.0  # the whole attempt


@dataclass(frozen=True)
class RunArchived:
    folder: str  # relative to the project


@dataclass(frozen=True)
class LaneOpened:
    spec: str
    branch: str
    worktree: str  # relative to the project


@dataclass(frozen=True)
class LaneMerged:
    spec: str
    branch: str
    into: str
    changed: bool  # the merge changed the integration branch's files
    downgraded: tuple[str, ...]  # specs that dropped from 3/3 to 2/3 (the merged one included)
    closes: bool = True  # its spec at 3/3: the lane is done (else its work is shared early)


@dataclass(frozen=True)
class LaneConflict:
    """A merge of the lane, or an update of it, conflicted and was aborted: its agent resolves."""

    spec: str
    branch: str
    into: str
    files: tuple[str, ...]
    others: tuple[str, ...]  # the specs merged into `into` that the lane has not seen
    during: str  # "merge" (lane into the branch) or "update" (the branch into the lane)


@dataclass(frozen=True)
class LaneLeftOut:
    """A spec at 3/3 went back to 2/3: its lane holds work the user's branch lacks."""

    spec: str
    branch: str
    into: str
    uncommitted: tuple[str, ...]  # what ralph could not commit (its agent settles it); () if none


@dataclass(frozen=True)
class LaneClosed:
    spec: str
    branch: str
    removed: bool  # worktree and branch removed; False: kept (the reason says why)
    reason: str


Fact = (
    WaitStarted
    | SpecBlocked
    | GateBypassed
    | AnswerDelivered
    | RotationRecorded
    | BudgetSpent
    | BreakerChanged
    | Reconciled
    | Escalated
    | QuestionAsked
    | LimitsSeen
    | GateRecord
    | VerificationStarted
    | VerificationAnswered
    | VerificationEnded
    | RunArchived
    | LaneOpened
    | LaneMerged
    | LaneConflict
    | LaneLeftOut
    | LaneClosed
)
FACTS = (
    WaitStarted,
    SpecBlocked,
    GateBypassed,
    AnswerDelivered,
    RotationRecorded,
    BudgetSpent,
    BreakerChanged,
    Reconciled,
    Escalated,
    QuestionAsked,
    LimitsSeen,
    *GATE_RECORDS,
    VerificationStarted,
    VerificationAnswered,
    VerificationEnded,
    RunArchived,
    LaneOpened,
    LaneMerged,
    LaneConflict,
    LaneLeftOut,
    LaneClosed,
)
