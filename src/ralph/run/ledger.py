"""The one step that writes what a rotation leaves, once its scheduler has folded it: its log
closed and its record, the state, the tree the next rotation starts from, what the gate keeps
of the tests, then the events.

The order is the one a `kill -9` needs (docs/explanation/worklog.md): the record of a rotation
comes before the state that counts it, the state before the snapshot. The caller holds
interrupts from the tree taken (Rotation.settle) to the end of this step."""

from __future__ import annotations

import time

from ralph.rules.state import State
from ralph.run.accounting import budget_spent, rotation_tally, usage_fields
from ralph.run.context import matrix_rows
from ralph.run.events import RotationEnded
from ralph.run.facts import AnswerDelivered, RotationRecorded
from ralph.run.question import archive_answered
from ralph.run.rotation import Rotation
from ralph.run.tree import Taken
from ralph.run.turn import Attempt, Outcome
from ralph.store.rotationlog import RotationLog
from ralph.store.snapshot import Snapshot


def kept(taken: Taken, log: RotationLog) -> Snapshot:
    """Once the outcome is saved: a failed snapshot is raised now."""
    if taken.failure is not None:
        log.close(f"# ralph could not take a snapshot: {taken.failure.message}")
        raise taken.failure
    assert taken.after is not None
    return taken.after


def keep(rotation: Rotation, after: Snapshot, taken: Taken) -> None:
    """The tree the next rotation starts from; the agent's whole process tree is gone."""
    rotation.tree.save(after, taken.hidden)
    rotation.place.note(agent_pid=None)


def write(
    rotation: Rotation,
    attempt: Attempt,
    outcome: Outcome,
    state: State,
    downgraded: tuple[str, ...],
) -> Snapshot:
    """`state` (the run's state with `outcome` folded in) and what the attempt leaves, written;
    the tree the next rotation starts from."""
    run, ws, turn = rotation.run, rotation.run.ws, attempt.turn
    budget, log = attempt.budget, attempt.log
    tick = time.perf_counter()
    taken = outcome.taken
    if taken.failure is not None:  # the outcome is kept; the failed snapshot is raised next
        run.save(state)
        rotation.gate.keep_tests(turn.spec, taken.changes.paths, state)
    after = kept(taken, log)
    changes = taken.changes
    elapsed = time.time() - attempt.started
    row = state.get(turn.spec.path)
    done_count = row.done_count if row is not None else 0
    signal_, note, iteration = outcome.signal, outcome.note, turn.iteration
    result = outcome.result
    with budget.operation("logs"):
        log.close(
            f"# ended: signal={signal_} files_changed={len(changes)} "
            f"elapsed={elapsed:.1f}s" + (f" note={note}" if note else "")
        )
        if turn.answer is not None:
            # delivered: a later rotation must not get the same answer again
            moved = archive_answered(ws)
            run.emit(AnswerDelivered(ws.rel(moved)))
        paths = changes.paths[:50] if budget.optional("changed_paths") else ()
        own = outcome.own + time.perf_counter() - tick
        run.emit(
            RotationRecorded(
                iteration=iteration,
                spec=turn.spec.path,
                mode=turn.mode,
                agent=turn.agent.name,
                signal=signal_,
                note=note,
                files_changed=len(changes),
                paths=tuple(paths),
                done_count=done_count,
                downgraded=downgraded,
                agent_s=result.process.elapsed,
                checks_s=attempt.checks_s,
                seconds=elapsed,
                overhead_ms=own * 1000,
                log=ws.rel(log.path),
                usage=usage_fields(result),
                fault=result.fault,
                stderr=result.stderr_lines() if signal_ == "ERROR" else (),
            )
        )
    with budget.operation("state_save"):
        run.save(state)
    with budget.operation("bookkeeping"):  # the tests' baseline: after the state (kill -9)
        rotation.gate.keep_tests(turn.spec, changes.paths, state)
    with budget.operation("snapshot_save"):
        keep(rotation, after, taken)
    budget_spent(run.emit, iteration, budget)
    rotation.emit(
        RotationEnded(
            agent=turn.agent.name,
            spec=turn.spec.path,
            mode=turn.mode,
            iteration=iteration,
            run_iteration=iteration - turn.first,
            max_iterations=turn.limit - turn.first,
            signal=signal_,
            files_changed=len(changes),
            done_count=done_count,
            elapsed=round(elapsed, 3),
            note=note,
            downgraded=downgraded,
            matrix=matrix_rows(state),
            usage=rotation_tally(result),
            checks=round(attempt.checks_s, 3) if attempt.checks_s else None,
        )
    )
    return after
