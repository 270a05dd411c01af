"""run/verification.py: once every spec is at 3/3 another agent verifies the whole work; a pass
archives the run, failures in a row end it with exit 6 and send the specs back to work in
between. In-process through run_loop with the scripted agent (its VERIFY steps) behind
CommandAgent's seam; the CLI's own tests are tests/e2e/test_final_verification.py."""

from __future__ import annotations

from typing import Any

from ralph.errors import ExitCode
from ralph.run import verification  # noqa: F401 -- the final verification, run by run_loop
from ralph.run.events import RotationStarted
from ralph.run.facts import RunArchived, VerificationEnded
from tests.conftest import Project
from tests.e2e.test_lanes import lanes_project
from tests.run.test_loop import play

FAIL = {"say": "the README is missing", "signal": "VERIFY_FAIL"}


def watched(project: Project, steps: dict[str, Any], **more: Any) -> tuple[int, list[object]]:
    """The run's exit code, and its events then its facts."""
    seen: list[object] = []
    code, events = play(project, steps, watch=seen.append, **more)
    return code, [*events, *seen]


def test_a_pass_archives_the_run(project: Project) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    code, facts = watched(project, {"*": [{"signal": "DONE"}]})
    assert code == ExitCode.OK
    ends = [f for f in facts if isinstance(f, VerificationEnded)]
    assert [(f.attempt, f.passed, f.failures) for f in ends] == [(1, True, 0)]
    (archived,) = [f for f in facts if isinstance(f, RunArchived)]
    assert (project.root / archived.folder).is_dir()


def test_failures_in_a_row_end_the_run_with_exit_6_and_each_sends_the_specs_back(
    project: Project,
) -> None:
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    code, facts = watched(
        project,
        {"*": [{"signal": "DONE"}], "VERIFY": [FAIL]},
        yaml="max_verification_failures: 2\n",
    )
    assert code == ExitCode.VERIFICATION_FAILED
    ends = [f for f in facts if isinstance(f, VerificationEnded)]
    assert [(f.passed, f.failures) for f in ends] == [(False, 1), (False, 2)]
    assert ends[0].specs == ("specs/a.spec.md",)  # whose handoff hears of the failure
    reviews = [e for e in facts if isinstance(e, RotationStarted) and e.mode == "REVIEW"]
    assert len(reviews) == 3  # two to reach 3/3, then one between the two verifications
    assert not any(isinstance(f, RunArchived) for f in facts)


def test_a_failure_then_a_pass_is_verified(project: Project) -> None:
    # the control: the count is of failures in a row
    lanes_project(project, {"specs/a.spec.md": "# a\n"})
    steps = {"*": [{"signal": "DONE"}], "VERIFY": [FAIL, {"signal": "VERIFY_PASS"}]}
    code, facts = watched(project, steps, yaml="max_verification_failures: 2\n")
    assert code == ExitCode.OK
    ends = [f for f in facts if isinstance(f, VerificationEnded)]
    assert [(f.passed, f.failures) for f in ends] == [(False, 1), (True, 0)]
