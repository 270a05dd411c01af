"""run/context.py: what is fixed for a run (`Shared`, frozen) and what it computes from the
state it is given: this run's budget of rotations, its spending, its end; and `open_run`, where
the numbering goes on and every agent's secret is redacted. Built in-process with the scripted
agent (tests/fakes/scripted_inline.py)."""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any

from ralph.agents.member import Member
from ralph.errors import ExitCode
from ralph.rules.counts.state import SpecState, State, Tally
from ralph.run import context
from ralph.run.context import Shared, open_run
from ralph.run.events import CancelRequested, Event, Notice, RunEnded
from ralph.run.facts import Fact
from ralph.store.disk.workspace import Workspace
from ralph.store.live.cancel import CancelWatch
from ralph.store.live.runlock import RunLock
from ralph.store.records.state import save_state
from tests.conftest import Project
from tests.fakes.scripted_inline import inline_agent
from tests.run.test_options import run_options
from tests.test_run_values import RUN_VALUES

SECRET = "opensesame-0123456789"


@contextmanager
def shared(
    project: Project, state: State | None = None, **more: Any
) -> Iterator[tuple[Shared, State, list[Event | Fact]]]:
    """The run's fixed part as `ralph run` opens it (state.json as given), and its events."""
    script = project.root.parent / "inline-script.json"
    script.write_text(json.dumps({"*": [{"signal": "DONE"}]}))
    opts = run_options(project.root, (Member(inline_agent(script)()),), **more)
    ws = Workspace(project.root)
    ws.ensure()
    if state is not None:
        save_state(ws.state_file, state)
    events: list[Event | Fact] = []
    with RunLock(ws.dir, agent="scripted") as lock, CancelWatch(ws.dir) as cancel:
        run, start = open_run(opts, ws, events.append, lock, cancel)
        yield run, start, events


def test_what_is_fixed_for_a_run_is_frozen() -> None:
    assert not hasattr(context, "RunContext")
    assert context.Shared.__dataclass_params__.frozen  # type: ignore[attr-defined]
    names = {f.name for f in dataclasses.fields(context.Shared)}
    assert not names & RUN_VALUES


def test_the_run_s_budget_counts_from_where_it_started(project: Project) -> None:
    with shared(project, State(last_rotation=7), max_iterations=3) as (run, start, _):
        assert (run.first, start.last_rotation) == (7, 7)
        assert (run.budget(start), run.limit(start)) == (3, 10)
        assert run.run_iteration(replace(start, last_rotation=9)) == 2
        assert not run.exhausted(replace(start, last_rotation=9))  # the control
        assert run.out_of_budget(replace(start, last_rotation=9)) is None
        used = replace(start, last_rotation=10)
        assert run.exhausted(used)
        assert run.out_of_budget(used) == "max iterations reached (3 rotations this run)"
        # a final verification's extra rotation is recorded in the state: the budget is its
        grown = replace(used, max_iteration=4)
        assert (run.budget(grown), run.limit(grown), run.exhausted(grown)) == (4, 11, False)


def test_only_what_this_run_spent_counts_against_its_money(project: Project) -> None:
    before = State(usage=Tally(rotations=5, cost_usd=9.0))  # earlier runs spent $9
    with shared(project, before, max_cost=1.0) as (run, start, _):
        assert run.usage_at_start == before.usage
        assert run.out_of_budget(start) is None  # the control: $9 before this run is not its
        spent = replace(start, usage=Tally(rotations=6, cost_usd=10.5))
        reason = run.out_of_budget(spent)
        assert reason is not None and reason.startswith("cost budget reached")
        assert "of $1.00 this run" in reason


def test_tokens_are_a_budget_too(project: Project) -> None:
    with shared(project, max_tokens=1000) as (run, start, _):
        below = replace(start, usage=Tally(rotations=1, input_tokens=500, output_tokens=499))
        assert run.out_of_budget(below) is None
        at = replace(start, usage=Tally(rotations=1, input_tokens=500, output_tokens=500))
        reason = run.out_of_budget(at)
        assert reason is not None and reason.startswith("token budget reached")


def test_a_lost_state_file_goes_on_from_the_last_logged_rotation(project: Project) -> None:
    """Numbers name one rotation for the life of the project: they never repeat while the
    history logs exist."""
    logs = Workspace(project.root).records / "a"
    logs.mkdir(parents=True)
    (logs / "041.log").write_text("x\n")
    with shared(project) as (run, start, _):
        assert (run.first, start.last_rotation) == (41, 41)
    with shared(project, State(last_rotation=50)) as (run, _, _):  # the control: state wins
        assert run.first == 50


def test_the_run_s_secrets_are_redacted_in_what_it_shows(project: Project) -> None:
    with shared(project, secrets=frozenset({SECRET})) as (run, _, events):
        run.emit(Notice("warning", f"printed {SECRET}"))
    assert events == [Notice("warning", "printed [REDACTED]")]


def test_ralph_cancel_is_an_event_of_the_run(project: Project) -> None:
    with shared(project) as (run, _, events):
        assert run.cancel.on_request is not None
        run.cancel.on_request("now")
    assert events == [CancelRequested("now")]


def test_the_run_ends_once_with_its_code_and_its_numbers(project: Project) -> None:
    with shared(project, State(last_rotation=4), max_iterations=5) as (run, start, events):
        code = run.end(replace(start, last_rotation=6), ExitCode.NEEDS_HUMAN, "stuck")
    assert code == int(ExitCode.NEEDS_HUMAN)
    [end] = [e for e in events if isinstance(e, RunEnded)]
    assert (end.exit_code, end.reason) == (int(ExitCode.NEEDS_HUMAN), "stuck")
    assert (end.iteration, end.run_iteration, end.max_iterations) == (6, 2, 5)
    assert run.sink.ended


def test_a_rotation_s_event_says_its_place_in_this_run(project: Project) -> None:
    with shared(project, State(last_rotation=3), max_iterations=5) as (run, start, _):
        now = replace(start, last_rotation=5)
        event = run.started(now, "scripted", "specs/a.spec.md", "IMPLEMENT", 1.0)
        earlier = run.started(now, "scripted", "specs/a.spec.md", "REVIEW", 1.0, number=4)
    assert (event.iteration, event.run_iteration, event.max_iterations) == (5, 2, 5)
    assert (earlier.iteration, earlier.run_iteration) == (4, 1)


def test_the_run_s_clock_is_a_value_that_follows_the_monotonic_clock(project: Project) -> None:
    """The breaker's time and each outcome's end come from `Shared.clock`: the wall clock read
    once, moved on by the monotonic clock alone (a wall clock stepped meanwhile moves nothing).
    Given, it is the one read; by default, ralph's own from its start."""
    ticks = iter([5.0, 65.0, 64.0 + 3600])
    given = context.SteadyClock(wall=1_000.0, start=5.0, monotonic=lambda: next(ticks))
    with shared(project) as (run, _, _):
        assert run.clock is context.STEADY and run.clock.monotonic is time.monotonic
        timed = replace(run, clock=given)
        assert [timed.clock(), timed.clock(), timed.clock()] == [1_000.0, 1_060.0, 4_659.0]


def test_a_spec_s_cost_is_null_without_a_priced_rotation(project: Project) -> None:
    """`costs` gives each spec's calls and tokens; its cost is null when none of its rotations
    reported a price (or it had none), a lower bound when some did."""
    state = State(
        specs=(
            SpecState("specs/a.spec.md", usage=Tally(2, 10, 5, 0.0, unpriced=2)),
            SpecState("specs/b.spec.md", usage=Tally(2, 20, 8, 0.1234567, unpriced=1)),
            SpecState("specs/c.spec.md"),
        )
    )
    with shared(project) as (run, _, _):
        _, data = run.costs(state)
    per = data["per_spec"]
    assert per["specs/a.spec.md"] == {
        "calls": 2,
        "input_tokens": 10,
        "output_tokens": 5,
        "cost_usd": None,
    }
    assert per["specs/b.spec.md"]["cost_usd"] == 0.123457  # control: one priced call counts
    assert per["specs/c.spec.md"]["cost_usd"] is None and per["specs/c.spec.md"]["calls"] == 0
