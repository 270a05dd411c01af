"""What one rotation spent, as the agent reported it: into the state, the worklog, the display."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace

from ralph.agents.result import AgentResult
from ralph.rules.budget import LatencyBudget
from ralph.rules.state import State, Tally
from ralph.rules.usage import record_usage
from ralph.run.events import Event, Notice
from ralph.run.facts import BudgetSpent, Fact


def account(state: State, spec: str, agent: str, result: AgentResult, changed: bool) -> State:
    """Count the rotation's usage, and remember who last changed the spec's files (the next
    REVIEW prefers someone else: fresh eyes)."""
    state = record_usage(state, spec, agent, result.usage)
    row = state.get(spec)
    if changed and row is not None:
        state = state.with_spec(replace(row, last_changed_by=agent))
    return state


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
