"""The one commit step of every rotation, a spec's, a lane's and the final verification's
(`commit`: the pure fold, the state saved, then `write`: the record, what the gate keeps of
the tests, the tree the next rotation starts from, the events). The writes go to the `Books`
handed over (run/trial.py writes a verification's to the same): never back into the rotation.

The order is the one a `kill -9` needs (docs/explanation/worklog.md): the state is the truth
and comes first, the record of a rotation derived from it after (a run that takes over from a
kill between the two records the state's counters: run/takeover.py), the snapshot last. The
scheduler holds interrupts from the tree taken (Rotation.settle) to the end of `write`."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from ralph.agents.result import AgentResult
from ralph.rules.agents.budget import LatencyBudget
from ralph.rules.counts.spec import Spec
from ralph.rules.counts.state import State, Tally
from ralph.run.events import Event, Notice, RotationEnded, matrix_rows
from ralph.run.facts import AnswerDelivered, BudgetSpent, Fact, RotationRecorded
from ralph.run.interrupts import deferred_interrupts
from ralph.run.question import archive_answered
from ralph.run.tree import Taken, Tree
from ralph.run.turn import Attempt, Outcome
from ralph.store.disk.workspace import Workspace
from ralph.store.records.rotationlog import RotationLog
from ralph.store.records.state import save_state
from ralph.store.snapshots.snapshot import Snapshot

Fold = Callable[[State, Outcome], tuple[State, tuple[str, ...]]]  # run/fold.fold, its rule given
Write = Callable[[State, tuple[str, ...]], Snapshot]
KeepTests = Callable[[Spec, Sequence[str], State], None]  # the gate's, once the state is saved


class StateFile:
    """The one place a run writes state.json (its scheduler's, lent to the final verification
    and the merger): as the scheduler's state is set (`SpecRun.state`) and in the commit step;
    never the same state twice in a row."""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.saved: State | None = None  # the state as state.json holds it

    def save(self, state: State) -> None:
        """Never half a save: an interrupt waits for it (the atomic write leaves no temp
        file)."""
        if state != self.saved:
            with deferred_interrupts():
                save_state(self.path, state)
            self.saved = state


@dataclass(frozen=True)
class Books:
    """Where a rotation's writes go: the run's workspace, the sink its events take (a lane's
    name the lane), the tree the next rotation starts from, and its place's run.json news."""

    ws: Workspace
    emit: Callable[[Event | Fact], None]
    tree: Tree
    note: Callable[..., None]


def commit(
    state: State,
    outcome: Outcome,
    fold: Fold,
    save: Callable[[State], None],
    budget: LatencyBudget,
    write: Write,
) -> tuple[State, Snapshot]:
    """One step for every rotation, in the order a kill -9 needs: the pure fold, the state
    saved (the truth), then what the outcome leaves (`write`: its record, the tree, the
    events). The caller holds interrupts. The new state and the tree the next rotation
    starts from."""
    with budget.operation("bookkeeping"):
        state, dropped = fold(state, outcome)
    with budget.operation("state_save"):
        save(state)
    return state, write(state, dropped)


def ended(
    books: Books, taken: Taken, log: RotationLog, budget: LatencyBudget, end: RotationEnded
) -> Snapshot:
    """The end every rotation's write shares, a spec's and a verification's: the tree the next
    rotation starts from (a failed snapshot is raised now, its log closed), the agent's whole
    process tree gone, what ralph's own work cost, then the rotation's end; that tree."""
    if taken.failure is not None:
        log.close(f"# ralph could not take a snapshot: {taken.failure.message}")
        raise taken.failure
    assert taken.after is not None
    with budget.operation("snapshot_save"):
        books.tree.save(taken.after, taken.hidden)
        books.note(agent_pid=None)
    budget_spent(books.emit, end.iteration, budget)
    books.emit(end)
    return taken.after


def record(
    books: Books,
    attempt: Attempt,
    outcome: Outcome,
    state: State,
    downgraded: tuple[str, ...],
) -> None:
    """After the state that counts it: the rotation's log closed and its record. A rotation
    whose snapshot failed gets neither yet: the failure is raised (`write`)."""
    if outcome.taken.failure is not None:
        return
    ws, emit, turn, result = books.ws, books.emit, attempt.turn, outcome.result
    budget, log, changes = attempt.budget, attempt.log, outcome.changes
    tick = time.perf_counter()
    signal_, note = outcome.signal, outcome.note
    with budget.operation("logs"):
        log.close(
            f"# ended: signal={signal_} files_changed={len(changes)} "
            f"elapsed={outcome.seconds:.1f}s" + (f" note={note}" if note else "")
        )
        if turn.answer is not None:
            # delivered: a later rotation must not get the same answer again
            moved = archive_answered(ws)
            emit(AnswerDelivered(ws.rel(moved)))
        paths = changes.paths[:50] if budget.optional("changed_paths") else ()
        own = outcome.own + time.perf_counter() - tick
        emit(
            RotationRecorded(
                iteration=turn.iteration,
                spec=turn.spec.path,
                mode=turn.mode,
                agent=turn.agent.name,
                signal=signal_,
                note=note,
                files_changed=len(changes),
                paths=tuple(paths),
                done_count=_done_count(state, outcome.spec),
                downgraded=downgraded,
                agent_s=result.process.elapsed,
                checks_s=attempt.checks_s,
                seconds=outcome.seconds,
                overhead_ms=own * 1000,
                log=ws.rel(log.path),
                usage=usage_fields(result),
                fault=result.fault,
                stderr=result.stderr_lines() if signal_ == "ERROR" else (),
            )
        )


def write(
    books: Books,
    attempt: Attempt,
    outcome: Outcome,
    state: State,
    downgraded: tuple[str, ...],
    keep: KeepTests,
) -> Snapshot:
    """Once the state is saved (`commit`'s `write`): the rotation's record, what the gate
    keeps of the tests, the tree the next rotation starts from (a failed snapshot is raised
    now), then the events; that tree."""
    record(books, attempt, outcome, state, downgraded)
    turn, budget, taken = attempt.turn, attempt.budget, outcome.taken
    with budget.operation("bookkeeping"):  # the tests' baseline: after the state (kill -9)
        keep(turn.spec, taken.changes.paths, state)
    return ended(
        books,
        taken,
        attempt.log,
        budget,
        RotationEnded(
            agent=turn.agent.name,
            spec=turn.spec.path,
            mode=turn.mode,
            iteration=turn.iteration,
            run_iteration=turn.iteration - turn.first,
            max_iterations=turn.limit - turn.first,
            signal=outcome.signal,
            files_changed=len(taken.changes),
            done_count=_done_count(state, outcome.spec),
            elapsed=round(outcome.seconds, 3),
            note=outcome.note,
            downgraded=downgraded,
            matrix=matrix_rows(state),
            usage=rotation_tally(outcome.result),
            checks=round(attempt.checks_s, 3) if attempt.checks_s else None,
        ),
    )


def _done_count(state: State, path: str) -> int:
    row = state.get(path)
    return row.done_count if row is not None else 0


def rotation_tally(result: AgentResult) -> Tally | None:
    usage = result.usage
    if usage is None:
        return None
    return Tally(
        rotations=1,
        input_tokens=usage.input_tokens,
        output_tokens=usage.output_tokens,
        cost_usd=usage.cost_usd or 0.0,
        unpriced=int(usage.cost_usd is None),
    )


def usage_fields(result: AgentResult) -> dict[str, object]:
    """The worklog's usage keys of a rotation: null where the agent reported nothing."""
    usage = result.usage
    return {
        "input_tokens": usage.input_tokens if usage else None,
        "output_tokens": usage.output_tokens if usage else None,
        "cost_usd": usage.cost_usd if usage else None,
        "fault": result.fault.kind if result.fault else None,
    }


def budget_spent(
    emit: Callable[[Event | Fact], None], iteration: int, budget: LatencyBudget
) -> None:
    """What ralph's own work in a rotation cost, and a warning when it went over its budget."""
    emit(BudgetSpent(iteration, budget.to_json()))
    if budget.exceeded:
        emit(
            Notice(
                "warning",
                f"ralph's own work in rotation {iteration} took {budget.used_ms:.0f} ms, "
                f"over its {budget.total_ms:.0f} ms budget",
            )
        )
