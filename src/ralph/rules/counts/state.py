"""The spec matrix as values: the state model and how it is written as JSON (pure).

Plain frozen dataclasses rather than Pydantic: `ralph status` must start in under 150 ms and
Pydantic's import alone costs about 200 ms here. Reading the file back, strictly, is
`ralph.store.records.state`'s job.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Final

from ralph.rules.counts.breaker import Breaker
from ralph.rules.evidence.testcounts import TestCounts

SCHEMA_VERSION = 1
MAX_COUNT = 3
# Statuses a spec can carry: the agent's signals, NONE (no signal), ERROR (failed rotation) and
# REFUSED (the agent said DONE but a completion check failed; counted as CONTINUE).
STATUSES = ("DONE", "CONTINUE", "ROTATE", "STUCK", "QUESTION", "NONE", "ERROR", "REFUSED")
# How a human resolved an escalation for a spec: its state taken as verified, or its
# verification skipped (a risk the user took).
ACCEPTED: Final = "user_accepted"
BYPASSED: Final = "bypassed"
OVERRIDES = (ACCEPTED, BYPASSED)


@dataclass(frozen=True)
class Tally:
    """Tokens and cost of some rotations, as far as the agents reported them."""

    rotations: int = 0  # rotations counted here
    input_tokens: int = 0
    output_tokens: int = 0
    cost_usd: float = 0.0  # the sum of the prices reported
    unpriced: int = 0  # rotations that reported no price: cost_usd is then a lower bound

    @property
    def tokens(self) -> int:
        return self.input_tokens + self.output_tokens


@dataclass(frozen=True)
class SpecState:
    path: str
    done_count: int = 0
    last_status: str | None = None  # None: never processed
    last_hash: str | None = None  # content hash recorded when the spec was last processed
    modified_files: bool = False  # did its last rotation change tracked files
    rotations: int = 0
    # Rotations per mode since the last `ralph reset`: the front matter's iteration caps.
    implement_rotations: int = 0
    review_rotations: int = 0
    blocked: str | None = None  # why the spec hit an iteration cap; None: it may run
    # sha256 of front matter an agent wrote during a rotation: until a person changes it again
    # (or runs `ralph reset`), DONEs are refused, so an agent cannot drop the checks it fails.
    agent_front_matter: str | None = None
    usage: Tally = field(default_factory=Tally)
    last_changed_by: str | None = None  # the agent whose rotation last changed files
    override: str | None = None  # one of OVERRIDES, set by an escalation choice
    tests: TestCounts | None = None  # the last test run its DONE checks read (runner summaries)
    # the run a later one must not fall behind (fewer passed, more skipped) without a person
    best_tests: TestCounts | None = None
    refused: str | None = None  # why its last DONE was refused (None: it counted, or none was)

    @property
    def needs_work(self) -> bool:
        return self.done_count < MAX_COUNT


@dataclass(frozen=True)
class FinalVerification:
    """The independent verification once every spec is at 3/3."""

    passed: bool = False  # the last one passed and no rotation has run since
    failures: int = 0  # consecutive failed verifications
    bypassed: bool = False  # the user chose to go on without it (a risk)
    accepted: bool = False  # the user took the state as verified (user_accepted)
    last_failure: str | None = None  # what the last failed one found


@dataclass(frozen=True)
class State:
    schema_version: int = SCHEMA_VERSION
    iteration: int = 0  # rotations recorded since the last `ralph reset`, across runs
    # The last rotation's number: one number names one rotation for the life of the project
    # (history logs, the worklog, events), so `ralph reset` keeps it.
    last_rotation: int = 0
    max_iteration: int | None = None  # the last run's budget of rotations (--max-iterations)
    current_spec: str | None = None
    specs: tuple[SpecState, ...] = field(default_factory=tuple)
    usage: Tally = field(default_factory=Tally)  # every rotation since the state was created
    agent_usage: tuple[tuple[str, Tally], ...] = ()  # the same, per agent, in first-use order
    final: FinalVerification = field(default_factory=FinalVerification)
    breaker: Breaker = field(default_factory=Breaker)
    # Each lane's own breaker (`ralph run --parallel`), by its spec's path: a lane's failures
    # in a row pause that lane only (rules/counts/lanebreakers.py); the run's `breaker` above is the
    # one-spec scheduler's and the final verification's.
    lane_breakers: tuple[tuple[str, Breaker], ...] = ()
    # each spec's path and the digest of its front matter as a person left them (rules/
    # specset.py); None until a run first records them
    person_specs: tuple[tuple[str, str], ...] | None = None

    def get(self, path: str) -> SpecState | None:
        return next((s for s in self.specs if s.path == path), None)

    @property
    def complete(self) -> bool:
        return bool(self.specs) and all(not s.needs_work for s in self.specs)

    def with_spec(self, updated: SpecState) -> State:
        return replace(
            self, specs=tuple(updated if s.path == updated.path else s for s in self.specs)
        )


def number_next(state: State) -> State:
    """The state with the next rotation numbered (counted since the last reset, too)."""
    number = state.last_rotation + 1
    return replace(state, last_rotation=number, iteration=state.iteration + 1)


def state_to_json(state: State) -> dict[str, Any]:
    return {
        "schema_version": state.schema_version,
        "iteration": state.iteration,
        "last_rotation": state.last_rotation,
        "max_iterations": state.max_iteration,
        "current_spec": state.current_spec,
        "specs": [spec_to_json(s) for s in state.specs],
        "usage": tally_to_json(state.usage),
        "agents": {name: tally_to_json(t) for name, t in state.agent_usage},
        "final_verification": {
            "passed": state.final.passed,
            "failures": state.final.failures,
            "bypassed": state.final.bypassed,
            "accepted": state.final.accepted,
            "last_failure": state.final.last_failure,
        },
        "breaker": breaker_to_json(state.breaker),
        "person_specs": None if state.person_specs is None else dict(state.person_specs),
    } | (  # written once a lane has one: a state without lanes reads as before
        {"lane_breakers": {path: breaker_to_json(b) for path, b in state.lane_breakers}}
        if state.lane_breakers
        else {}
    )


def breaker_to_json(b: Breaker) -> dict[str, Any]:
    return {
        "state": b.state,
        "failures": b.failures,
        "opened_at": b.opened_at,
        "reasons": list(b.reasons),
        "subject": b.subject,
        "agents": b.agents,
    }


def _spec_fields(s: SpecState) -> dict[str, Any]:
    """Every fact about a spec, as JSON values: the state file and `status --json` pick theirs."""
    return {
        "path": s.path,
        "done_count": s.done_count,
        "last_status": s.last_status,
        "last_hash": s.last_hash,
        "modified_files": s.modified_files,
        "needs_work": s.needs_work,
        "rotations": s.rotations,
        "implement_rotations": s.implement_rotations,
        "review_rotations": s.review_rotations,
        "blocked": s.blocked,
        "agent_front_matter": s.agent_front_matter,
        "usage": tally_to_json(s.usage),
        "last_changed_by": s.last_changed_by,
        "override": s.override,
        "tests": s.tests.to_json() if s.tests is not None else None,
        "best_tests": s.best_tests.to_json() if s.best_tests is not None else None,
        "refused": s.refused,
    }


# The keys each view shows, in its order (both orders are part of the file formats).
_SAVED_SPEC_KEYS = (
    "path",
    "done_count",
    "last_status",
    "last_hash",
    "modified_files",
    "rotations",
    "implement_rotations",
    "review_rotations",
    "blocked",
    "agent_front_matter",
)
_STATUS_SPEC_KEYS = (
    "path",
    "done_count",
    "last_status",
    "modified_files",
    "last_hash",
    "needs_work",
    "rotations",
    "blocked",  # why it stopped at an iteration cap (front matter)
    "usage",
    "last_changed_by",
    "override",
    "tests",  # passed / failed / skipped of the last test run its checks read
    "best_tests",
    "refused",  # why its last DONE was refused
)
_STATUS_BREAKER_KEYS = ("state", "failures", "opened_at")


def spec_to_json(s: SpecState) -> dict[str, Any]:
    fields = _spec_fields(s)
    data = {key: fields[key] for key in _SAVED_SPEC_KEYS}
    # Optional keys (usage counting came later): written once they mean something.
    if s.usage.rotations:
        data["usage"] = fields["usage"]
    if s.last_changed_by is not None:
        data["last_changed_by"] = s.last_changed_by
    if s.override is not None:
        data["override"] = s.override
    for key in ("tests", "best_tests", "refused"):
        if fields[key] is not None:
            data[key] = fields[key]
    return data


def _status_spec(s: SpecState) -> dict[str, Any]:
    fields = _spec_fields(s)
    data = {key: fields[key] for key in _STATUS_SPEC_KEYS}
    data["usage"] = usage_to_json(s.usage)
    return data


def status_to_json(state: State, *, running: bool) -> dict[str, Any]:
    """`ralph status --json`: the state's own JSON seen from outside (the contract's keys, and a
    few more): whether a run is live and the matrix is complete, without the internal keys."""
    saved = state_to_json(state)
    return {
        "iteration": saved["iteration"],  # since the last `ralph reset`
        "last_rotation": saved["last_rotation"],  # the number events and the history use
        "max_iterations": saved["max_iterations"],
        "running": running,
        "complete": state.complete,
        "current_spec": saved["current_spec"],
        "specs": [_status_spec(s) for s in state.specs],
        "usage": usage_to_json(state.usage),  # every rotation since the state was created
        "agents": {name: usage_to_json(t) for name, t in state.agent_usage},
        "final_verification": saved["final_verification"],
        "breaker": {key: saved["breaker"][key] for key in _STATUS_BREAKER_KEYS},
    }


def usage_to_json(t: Tally) -> dict[str, Any]:
    """A tally as every outside view shows it (events, `status --json`, the reports): the
    cost is null when no rotation reported a price, as 0.0 would read as free."""
    data = tally_to_json(t)
    if t.rotations and t.unpriced >= t.rotations:
        data["cost_usd"] = None
    return data


def tally_to_json(t: Tally) -> dict[str, Any]:
    return {
        "rotations": t.rotations,
        "input_tokens": t.input_tokens,
        "output_tokens": t.output_tokens,
        "cost_usd": round(t.cost_usd, 6),
        "unpriced": t.unpriced,
    }
