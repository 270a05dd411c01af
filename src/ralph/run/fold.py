"""The one place a rotation's outcome joins the run's state, whichever scheduler ran it: the
spec's counter and status, its rotation count, what the gate keeps of it (the mark of front
matter an agent wrote, the test counts of its DONE), the usage (the agent's and any judge's),
the circuit breaker (rules/counts/breaker.py; a lane's own: rules/counts/lanebreakers.py); and a
final
verification's (`fold_verification`).

Pure: the outcome holds values only, read here; nothing is read from disk or written, so the
schedulers fold and then write what the outcome names, in one step (run/ledger.py)."""

from __future__ import annotations

from dataclasses import replace

from ralph.agents.result import AgentResult
from ralph.rules.counts import verification as fv
from ralph.rules.counts.breaker import Rule, after_rotation, record
from ralph.rules.counts.caps import count_rotation
from ralph.rules.counts.frontmark import next_mark
from ralph.rules.counts.lanebreakers import breaker_of, with_lane_breaker
from ralph.rules.counts.matrix import record_rotation
from ralph.rules.counts.state import State
from ralph.rules.counts.usage import record_usage
from ralph.rules.evidence.refusedwhy import refusal
from ralph.run.turn import Outcome


def fold(state: State, outcome: Outcome, rule: Rule) -> tuple[State, tuple[str, ...]]:
    """The state after `outcome`, and the other specs it sent from 3/3 back to 2/3; `rule`:
    the run's breaker.

    A lane's rotation changed files in its own worktree: the other specs hear of it only
    through its merge, so in a lane no other spec drops. A final verification's outcome (its
    verdict in it) folds by its own rules, `fold_verification`."""
    if outcome.verdict is not None:
        return fold_verification(state, outcome, rule)
    path, changed = outcome.spec, outcome.changed
    before = state
    state, downgraded = record_rotation(state, path, outcome.signal, changed, outcome.spec_hash)
    if outcome.lane is not None and downgraded:
        state, downgraded = _only(state, before, path), ()
    state = count_rotation(state, path, outcome.mode)
    state = _kept(state, outcome)
    for judged in outcome.judged:  # a semantic check's judge counts like any call
        state = record_usage(state, judged.spec, judged.agent, judged.usage)
    state = account(state, path, outcome.agent, outcome.result, changed)
    # a lane's failures move its own breaker: one lane's refusals pause that lane only
    lane = path if outcome.lane is not None else None
    breaker = after_rotation(
        breaker_of(state, lane),
        rule,
        signal=outcome.signal,
        note=outcome.note,
        iteration=outcome.iteration,
        spec=path,
        interrupted=outcome.interrupted or outcome.halted is not None,  # not the agent's failure
        now=outcome.ended,
    )
    if lane is not None:
        return with_lane_breaker(state, lane, breaker), downgraded
    return replace(state, breaker=breaker), downgraded


def fold_verification(state: State, verified: Outcome, rule: Rule) -> tuple[State, tuple[str, ...]]:
    """The state after a final verification, and the specs it sent from 3/3 back to 2/3.

    Its calls count like any rotation's (the verifier's and its judges'), even when it was
    stopped; stopped, it says nothing either way. A failure is one more in a row (for the
    breaker too) and sends every verified spec back for another review."""
    state = record_usage(state, fv.SUBJECT, verified.agent, verified.result.usage)
    for judged in verified.judged:
        state = record_usage(state, judged.spec, judged.agent, judged.usage)
    if verified.interrupted:
        return state, ()
    verdict = verified.verdict  # a verification's outcome (run/trial.settle) carries it
    assert verdict is not None, "not a final verification's outcome"
    breaker, _ = record(
        state.breaker,
        success=verdict.passed,
        now=verified.ended,
        threshold=rule.threshold,
        reason=f"final verification {state.final.failures + 1}: {verdict.summary}",
        subject=fv.SUBJECT,
        agents=rule.agents,
    )
    state = replace(state, breaker=breaker)
    if verdict.passed:
        return fv.after_pass(state), ()
    return fv.after_failure(state, verdict)


def _kept(state: State, outcome: Outcome) -> State:
    """What the gate keeps of the spec: the mark of front matter an agent wrote, the test
    counts of its DONE's checks (the best run too, when they did not fall behind), and why its
    last DONE was refused."""
    row = state.get(outcome.spec)
    if row is None:
        return state
    mark = next_mark(outcome.front, row.agent_front_matter)
    if mark != row.agent_front_matter:
        row = replace(row, agent_front_matter=mark)
    counts = outcome.counts
    if counts is not None:
        best = counts if outcome.best else row.best_tests
        row = replace(row, tests=counts, best_tests=best)
    if outcome.signal in ("REFUSED", "DONE"):  # why, for `ralph status`: said until it counts
        row = replace(row, refused=refusal(outcome.note) if outcome.signal == "REFUSED" else None)
    return state.with_spec(row)


def _only(state: State, before: State, path: str) -> State:
    """`state` with the other specs' rows as they were `before`."""
    rows = tuple(r if r.path == path else (before.get(r.path) or r) for r in state.specs)
    return replace(state, specs=rows)


def account(state: State, spec: str, agent: str, result: AgentResult, changed: bool) -> State:
    """Count the rotation's usage, and remember who last changed the spec's files (the next
    REVIEW prefers someone else: fresh eyes)."""
    state = record_usage(state, spec, agent, result.usage)
    row = state.get(spec)
    if changed and row is not None:
        state = state.with_spec(replace(row, last_changed_by=agent))
    return state
