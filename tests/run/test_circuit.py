"""run/circuit.py: failed rotations in a row open the breaker, and an open breaker asks a
person (here a `decide` answering as one would) before another agent runs; in-process through
run_loop with the scripted agent played through CommandAgent's seam. The CLI's own tests of the
breaker and escalation are in tests/e2e/test_escalation.py."""

from __future__ import annotations

from ralph.errors import ExitCode
from ralph.rules.agents.pool import PoolPolicy
from ralph.run import circuit  # noqa: F401 -- the breaker's part of the run, run by run_loop
from ralph.run.events import Notice, RotationEnded
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project
from tests.run.test_convergence import Person
from tests.run.test_loop import ended, play, reason

CRASH = {"say": "Traceback: boom", "exit": 1}
# the breaker is the subject here: the pool keeps an agent that fails, whatever its failures
KEEP = PoolPolicy(max_failures=None)


def test_three_failures_in_a_row_open_it_and_abort_ends_the_run(project: Project) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    person = Person("abort")
    code, events = play(project, {"*": [CRASH]}, policy=KEEP, decide=person)
    assert code == ExitCode.NEEDS_HUMAN
    assert [signal for _, signal, _ in ended(events)] == ["ERROR"] * 3  # not one rotation more
    assert [(e.kind, e.subject, e.failures) for e in person.asked] == [
        ("breaker", "specs/a.spec.md", 3)
    ]
    assert "aborted after 3 failures in a row on specs/a.spec.md" in reason(events)
    assert project.state()["breaker"]["state"] == "OPEN"


def test_accept_takes_the_spec_as_verified_by_the_person(project: Project) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    code, _ = play(project, {"*": [CRASH]}, policy=KEEP, decide=Person("accept"))
    assert code == ExitCode.OK
    spec = project.state()["specs"][0]
    assert (spec["done_count"], spec["override"]) == (3, "user_accepted")


def test_failures_that_do_not_follow_each_other_never_open_it(project: Project) -> None:
    # the control: a success between failures starts the count again
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    person = Person("abort")
    steps = {"*": [CRASH, CRASH, {"signal": "CONTINUE"}, CRASH, CRASH, {"signal": "DONE"}]}
    code, _ = play(project, steps, policy=KEEP, decide=person)
    assert code == ExitCode.OK and person.asked == []


def test_the_breaker_s_move_is_said_after_the_line_of_the_rotation_that_made_it(
    project: Project,
) -> None:
    """The fold moves the breaker; the scheduler says so once the rotation is written: its
    line first, then the breaker's, and the worklog in the same order."""
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    code, events = play(project, {"*": [CRASH]}, policy=KEEP, decide=Person("abort"))
    assert code == ExitCode.NEEDS_HUMAN
    lines = [
        "ended" if isinstance(e, RotationEnded) else e.message
        for e in events
        if isinstance(e, RotationEnded) or (isinstance(e, Notice) and "breaker" in e.message)
    ]
    assert lines == ["ended", "ended", "ended", "circuit breaker open: 3 failures in a row"]
    kinds = [r["event"] for r in project.worklog() if r["event"] in ("rotation_end", "breaker")]
    assert kinds == ["rotation_end"] * 3 + ["breaker"]
    assert project.worklog("breaker")[0]["after"] == "OPEN"
