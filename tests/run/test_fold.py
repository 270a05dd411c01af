"""The fold of a rotation's outcome into the run's state (run/fold.py), with outcomes built by
hand: no process, no git, no file. Each rule has a test that fails when the rule breaks."""

from __future__ import annotations

import ast
import inspect
from dataclasses import replace
from typing import Any

import pytest

from ralph.agents.result import AgentResult, Usage
from ralph.checks.records import JudgeSpent
from ralph.process.request import ProcessResult
from ralph.rules.counts import verification as fv
from ralph.rules.counts.breaker import Breaker, Rule
from ralph.rules.counts.frontmark import FrontSeen
from ralph.rules.counts.state import FinalVerification, SpecState, State, Tally
from ralph.rules.evidence.testcounts import TestCounts as Counts
from ralph.run import fold as fold_module
from ralph.run.fold import fold, fold_verification
from ralph.run.tree import Taken
from ralph.run.turn import Outcome
from ralph.store.snapshots.snapshot import Changes

A, B, C = "specs/a.md", "specs/b.md", "specs/c.md"
RULE = Rule(threshold=3, agents="fingerprint")  # the run's breaker


def result(usage: Usage | None = None) -> AgentResult:
    process = ProcessResult(0, b"", b"", 0, 0, 0.0, 1.0, False, False, False)
    return AgentResult(process, None, usage)


def outcome(signal: str = "DONE", changed: tuple[str, ...] = (), **more: Any) -> Outcome:
    values: dict[str, Any] = {
        "spec": A,
        "mode": "REVIEW",
        "agent": "coder",
        "iteration": 7,
        "signal": signal,
        "note": None,
        "interrupted": False,
        "result": result(),
        "taken": Taken(None, Changes(changed), {}, None),
        "spec_hash": "h-after",
        "front": None,
        "lane": None,
        "ended": 1000.0,
    }
    values.update(more)
    return Outcome(**values)


def state(*rows: SpecState) -> State:
    return State(specs=rows or (SpecState(A, done_count=1, last_hash="h-before"),))


def row(s: State, path: str = A) -> SpecState:
    found = s.get(path)
    assert found is not None
    return found


# ------------------------------------------------------------------ the counter


def test_a_clean_done_counts_one_more() -> None:
    after, downgraded = fold(state(), outcome("DONE"), RULE)
    r = row(after)
    assert (r.done_count, r.last_status, r.last_hash, r.rotations) == (2, "DONE", "h-after", 1)
    assert not r.modified_files and downgraded == ()


def test_a_done_that_changed_files_counts_one_only() -> None:
    after, _ = fold(state(SpecState(A, done_count=2)), outcome("DONE", ("x.py",)), RULE)
    assert (row(after).done_count, row(after).modified_files) == (1, True)


def test_a_refused_done_that_changed_files_goes_back_to_zero() -> None:
    after, _ = fold(state(SpecState(A, done_count=2)), outcome("REFUSED", ("x.py",)), RULE)
    assert (row(after).done_count, row(after).last_status) == (0, "REFUSED")


def test_an_unreadable_spec_keeps_its_last_hash() -> None:
    after, _ = fold(state(), outcome(spec_hash=None), RULE)
    assert row(after).last_hash == "h-before"


def test_a_rotation_makes_a_passed_final_verification_stale() -> None:
    before = replace(state(), final=replace(state().final, passed=True))
    after, _ = fold(before, outcome("CONTINUE"), RULE)
    assert not after.final.passed


def test_changes_in_the_project_s_tree_drop_the_other_verified_specs() -> None:
    before = state(SpecState(A), SpecState(B, done_count=3), SpecState(C, done_count=2))
    after, downgraded = fold(before, outcome("CONTINUE", ("x.py",)), RULE)
    assert downgraded == (B,)
    assert (row(after, B).done_count, row(after, C).done_count) == (2, 2)


def test_a_lane_s_changes_drop_no_other_spec() -> None:
    before = state(SpecState(A), SpecState(B, done_count=3))
    after, downgraded = fold(before, outcome("CONTINUE", ("x.py",), lane="lane-a"), RULE)
    assert downgraded == () and row(after, B).done_count == 3
    assert row(after).modified_files  # its own row still says it changed files


def test_the_rotation_counts_for_its_mode() -> None:
    implement, _ = fold(state(), outcome(mode="IMPLEMENT"), RULE)
    review, _ = fold(state(), outcome(mode="REVIEW"), RULE)
    assert (row(implement).implement_rotations, row(implement).review_rotations) == (1, 0)
    assert (row(review).implement_rotations, row(review).review_rotations) == (0, 1)


def test_a_spec_the_agent_deleted_still_counts_its_usage() -> None:
    spent = Usage(10, 5, 0.5)
    after, _ = fold(state(SpecState(B)), outcome(result=result(spent)), RULE)
    assert after.get(A) is None and after.usage.input_tokens == 10


# ------------------------------------------------------------------ what the gate keeps


def test_front_matter_the_agent_wrote_is_marked() -> None:
    after, _ = fold(state(), outcome(front=FrontSeen("d-agent", changed=True)), RULE)
    assert row(after).agent_front_matter == "d-agent"


def test_the_mark_stays_while_the_agent_s_front_matter_stays() -> None:
    marked = state(SpecState(A, agent_front_matter="d-agent"))
    after, _ = fold(marked, outcome(front=FrontSeen("d-agent", changed=False)), RULE)
    assert row(after).agent_front_matter == "d-agent"


def test_the_mark_is_forgotten_once_a_person_changed_the_front_matter() -> None:
    marked = state(SpecState(A, agent_front_matter="d-agent"))
    after, _ = fold(marked, outcome(front=FrontSeen("d-person", changed=False)), RULE)
    assert row(after).agent_front_matter is None


def test_an_unreadable_spec_keeps_its_mark() -> None:
    marked = state(SpecState(A, agent_front_matter="d-agent"))
    after, _ = fold(marked, outcome(front=None), RULE)
    assert row(after).agent_front_matter == "d-agent"


def test_the_test_counts_of_a_done_are_kept_and_the_best_run_moves() -> None:
    old, new = Counts(passed=3), Counts(passed=5)
    before = state(SpecState(A, tests=old, best_tests=old))
    after, _ = fold(before, outcome(counts=new, best=True), RULE)
    assert (row(after).tests, row(after).best_tests) == (new, new)


def test_counts_that_fell_behind_are_kept_but_not_as_the_best_run() -> None:
    old, fewer = Counts(passed=5), Counts(passed=2)
    before = state(SpecState(A, tests=old, best_tests=old))
    after, _ = fold(before, outcome("REFUSED", counts=fewer, best=False), RULE)
    assert (row(after).tests, row(after).best_tests) == (fewer, old)


def test_no_counts_leave_the_last_ones() -> None:
    old = Counts(passed=5)
    after, _ = fold(state(SpecState(A, tests=old, best_tests=old)), outcome("CONTINUE"), RULE)
    assert (row(after).tests, row(after).best_tests) == (old, old)


# ------------------------------------------------------------------ usage


def test_the_agent_s_usage_counts_in_the_totals_per_agent_and_per_spec() -> None:
    after, _ = fold(state(), outcome(result=result(Usage(100, 20, 0.25))), RULE)
    assert after.usage == Tally(1, 100, 20, 0.25, 0)
    assert dict(after.agent_usage)["coder"] == Tally(1, 100, 20, 0.25, 0)
    assert row(after).usage == Tally(1, 100, 20, 0.25, 0)


def test_a_judge_s_calls_count_like_any_call() -> None:
    judged = (JudgeSpent(7, A, "judge", Usage(40, 4, 0.1)), JudgeSpent(7, A, "judge", None))
    after, _ = fold(state(), outcome(judged=judged), RULE)
    assert dict(after.agent_usage)["judge"].rotations == 2
    assert after.usage.rotations == 3  # the agent's own, and the judge's two
    assert row(after).usage.input_tokens == 40


def test_who_changed_the_files_last_is_remembered() -> None:
    changed, _ = fold(state(), outcome("CONTINUE", ("x.py",)), RULE)
    unchanged, _ = fold(state(SpecState(A, last_changed_by="other")), outcome("CONTINUE"), RULE)
    assert row(changed).last_changed_by == "coder"
    assert row(unchanged).last_changed_by == "other"


# ------------------------------------------------------------------ purity


def test_the_fold_is_pure() -> None:
    """Only values in, a value out: the same outcome folds to the same state every time, the
    state passed is left as it was, and the fold's module imports only the pure rules and the
    values it reads (nothing that reaches a disk, a process or a clock)."""
    before = state(SpecState(A, done_count=1), SpecState(B, done_count=3))
    o = outcome("DONE", ("x.py",), front=FrontSeen("d", changed=True), counts=Counts(1))
    first, second = fold(before, o, RULE), fold(before, o, RULE)
    assert first == second
    assert before == state(SpecState(A, done_count=1), SpecState(B, done_count=3))
    tree = ast.parse(inspect.getsource(fold_module))
    imported = {
        node.module
        for node in ast.walk(tree)
        if isinstance(node, ast.ImportFrom) and node.module is not None
    }
    allowed = ("ralph.rules", "ralph.run.turn", "ralph.agents.result")
    assert [m for m in imported if m.startswith("ralph.") and not m.startswith(allowed)] == []
    assert not {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} & {"open", "time"}


@pytest.mark.parametrize("signal", ["CONTINUE", "ROTATE", "ERROR", "NONE", "REFUSED"])
def test_only_a_done_raises_the_counter(signal: str) -> None:
    after, _ = fold(state(), outcome(signal), RULE)
    assert row(after).done_count == 1


# ------------------------------------------------------------------ the circuit breaker


def test_failed_rotations_in_a_row_open_the_breaker_at_the_rule_s_threshold() -> None:
    after = state()
    for n, signal in enumerate(("ERROR", "REFUSED", "ERROR")):
        assert after.breaker.state == "CLOSED"
        after, _ = fold(after, outcome(signal, note="boom", ended=100.0 + n), RULE)
    b = after.breaker
    assert (b.state, b.failures, b.opened_at, b.agents) == ("OPEN", 3, 102.0, "fingerprint")
    assert (b.subject, b.reasons[-1]) == (A, "rotation 7 on specs/a.md: ERROR (boom)")


def test_a_rotation_that_ends_well_starts_the_count_again() -> None:
    after = state()
    for signal in ("ERROR", "ERROR", "CONTINUE", "ERROR", "ERROR"):
        after, _ = fold(after, outcome(signal), RULE)
    assert (after.breaker.state, after.breaker.failures) == ("CLOSED", 2)


def test_a_rotation_the_user_stopped_says_nothing_to_the_breaker() -> None:
    before = replace(state(), breaker=Breaker(failures=2, reasons=("x", "y"), subject=A))
    after, _ = fold(before, outcome("ERROR", interrupted=True), RULE)
    assert after.breaker == before.breaker


def test_a_failed_final_verification_counts_for_the_breaker_and_a_pass_closes_it() -> None:
    before = replace(done(), breaker=Breaker(failures=2, subject=fv.SUBJECT))
    failed, _ = fold_verification(before, verified(False, ended=5.0), RULE)
    assert (failed.breaker.state, failed.breaker.opened_at) == ("OPEN", 5.0)
    assert failed.breaker.reasons[-1].startswith("final verification 1: ")
    passed, _ = fold_verification(before, verified(True), RULE)
    assert passed.breaker == Breaker()
    stopped, _ = fold_verification(before, verified(False, interrupted=True), RULE)
    assert stopped.breaker == before.breaker


# ------------------------------------------------------------------ the final verification


def verified(passed: bool = True, **more: Any) -> Outcome:
    """A final verification's outcome (run/trial.settle): a rotation of "(all specs)"."""
    values: dict[str, Any] = {
        "spec": fv.ALL_SPECS,
        "mode": "VERIFY",
        "agent": "verifier",
        "iteration": 9,
        "signal": "VERIFY_PASS" if passed else "VERIFY_FAIL",
        "note": None,
        "result": result(),
        "judged": (),
        "interrupted": False,
        "verdict": fv.Verdict(passed, () if passed else ("the verifier answered VERIFY_FAIL",)),
        "taken": Taken(None, Changes(()), {}, None),
        "spec_hash": None,
        "front": None,
        "lane": None,
        "ended": 1000.0,
    }
    values.update(more)
    return Outcome(**values)


def done(failures: int = 0) -> State:
    rows = (SpecState(A, done_count=3), SpecState(B, done_count=3))
    return State(specs=rows, final=FinalVerification(failures=failures, last_failure="before"))


def test_a_pass_is_recorded_and_clears_the_failures() -> None:
    after, dropped = fold_verification(done(failures=2), verified(True), RULE)
    assert (after.final.passed, after.final.failures, after.final.last_failure) == (True, 0, None)
    assert dropped == () and [s.done_count for s in after.specs] == [3, 3]


def test_a_failure_counts_one_more_in_a_row_and_says_why() -> None:
    after, _ = fold_verification(done(failures=1), verified(False), RULE)
    assert (after.final.passed, after.final.failures) == (False, 2)
    assert after.final.last_failure == "the verifier answered VERIFY_FAIL"


def test_a_failure_sends_every_verified_spec_back_for_a_review() -> None:
    before = replace(done(), specs=(SpecState(A, done_count=3), SpecState(B, done_count=1)))
    after, dropped = fold_verification(before, verified(False), RULE)
    assert dropped == (A,)
    assert [s.done_count for s in after.specs] == [2, 1]


def test_a_stopped_verification_says_nothing_either_way() -> None:
    before = done(failures=1)
    after, dropped = fold_verification(before, verified(False, interrupted=True), RULE)
    assert (after.final, after.specs, dropped) == (before.final, before.specs, ())
    stopped, _ = fold_verification(before, verified(True, interrupted=True), RULE)
    assert not stopped.final.passed  # a pass the user stopped is no pass


def test_the_verifier_s_and_its_judges_calls_count_even_when_stopped() -> None:
    judged = (JudgeSpent(9, A, "judge", Usage(7, 1, 0.01)),)
    spent = result(Usage(50, 5, 0.2))
    for interrupted in (False, True):
        v = verified(result=spent, judged=judged, interrupted=interrupted)
        after, _ = fold_verification(done(), v, RULE)
        agents = dict(after.agent_usage)
        assert agents["verifier"] == Tally(1, 50, 5, 0.2, 0)
        assert agents["judge"] == Tally(1, 7, 1, 0.01, 0)
        assert after.usage.rotations == 2
        assert row(after).usage.input_tokens == 7  # a judge's call counts for its spec


def test_the_verification_fold_is_pure() -> None:
    before, v = done(failures=1), verified(False)
    assert fold_verification(before, v, RULE) == fold_verification(before, v, RULE)
    assert before == done(failures=1)


def test_one_fold_for_every_rotation_a_verification_s_outcome_by_its_own_rules() -> None:
    """`fold` is the one entry a scheduler's commit step calls: a final verification's
    outcome (its verdict in it) folds as `fold_verification` says; control: a spec's outcome
    still counts on its spec and leaves the verification's record alone."""
    before = done(failures=1)
    for passed in (True, False):
        v = verified(passed)
        assert fold(before, v, RULE) == fold_verification(before, v, RULE)
    after, _ = fold(before, outcome("DONE", spec=A), RULE)
    assert after.final == before.final and row(after).rotations == 1
