"""run/convergence.py: REVIEW rotations that keep changing files are caught and escalated to a
person (here a `decide` that answers as a person would), in-process through run_loop with the
scripted agent played through CommandAgent's seam. The CLI's own tests of the watch are in
tests/e2e/test_convergence.py."""

from __future__ import annotations

from ralph.errors import ExitCode
from ralph.run import convergence  # noqa: F401 -- the watch under test, run by run_loop
from ralph.run.escalation import Choice, Escalation
from ralph.run.events import RunEnded
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project
from tests.run.test_loop import ended, play

# every rotation rewrites the notes and says DONE: the implementing DONE counts, the reviews never
NOTES = {"*": [{"write": {"progress.md": f"rotation {n}\n"}, "signal": "DONE"} for n in range(20)]}


class Person:
    """Answers every escalation with `choice`, and remembers what it was asked."""

    def __init__(self, choice: Choice) -> None:
        self.choice = choice
        self.asked: list[Escalation] = []

    def __call__(self, escalation: Escalation) -> Choice:
        self.asked.append(escalation)
        return self.choice


def test_a_spec_that_never_converges_is_asked_about_and_abort_ends_the_run(
    project: Project,
) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    person = Person("abort")
    code, events = play(project, NOTES, yaml="convergence: {patience: 2}\n", decide=person)
    assert code == ExitCode.NEEDS_HUMAN
    # IMPLEMENT (1/3), then two REVIEWs whose changes keep it at 1/3: then the person is asked
    assert [n for _, _, n in ended(events)] == [1, 1, 1]
    assert [(e.kind, e.subject) for e in person.asked] == [("convergence", "specs/a.spec.md")]
    end = next(e for e in events if isinstance(e, RunEnded))
    assert "specs/a.spec.md is not converging" in end.reason


def test_continue_asks_again_after_patience_more_reviews(project: Project) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    person = Person("continue")
    code, _ = play(
        project, NOTES, yaml="convergence: {patience: 2}\n", decide=person, max_iterations=8
    )
    assert code == ExitCode.MAX_ITERATIONS  # it went on to the budget
    assert len(person.asked) == 3  # after rotations 3, 5 and 7


def test_a_spec_whose_reviews_change_nothing_is_never_asked_about(project: Project) -> None:
    # the control: the same patience, reviews that change nothing
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    person = Person("abort")
    quiet = {"*": [NOTES["*"][0], {"signal": "DONE"}]}
    code, _ = play(project, quiet, yaml="convergence: {patience: 2}\n", decide=person)
    assert code == ExitCode.OK and person.asked == []
