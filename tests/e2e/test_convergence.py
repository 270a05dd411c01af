"""The convergence watch: REVIEW rotations that keep changing files are caught, the files named
(with a .ralphignore hint for notes and logs), and the run escalates instead of spending its
budget on a spec that is not getting closer."""

from __future__ import annotations

import json

from tests.conftest import Project


def notes_every_time(n: int) -> dict[str, list[dict[str, object]]]:
    return {
        "*": [{"write": {"progress.md": f"rotation {i}\n"}, "signal": "DONE"} for i in range(n)]
    }


def test_a_spec_that_never_converges_escalates_and_headless_abort_stops_with_exit_5(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": "goal\n", "ralph.yaml": "convergence: {patience: 2}\n"})
    git_project.commit_all()
    res = git_project.run("run", "--plain", *git_project.fake(notes_every_time(20)), "-n", "20")
    assert res.exit_code == 5, res
    # IMPLEMENT (1/3), then REVIEWs whose changes keep it at 1/3: asked after two of them
    ends = git_project.rotation_ends()
    assert [e["done_count"] for e in ends] == [1, 1, 1]
    assert "Not converging: PROMPT.md keeps changing files" in res.stderr
    assert "changed every time or most often: progress.md" in res.stderr
    assert ".ralphignore" in res.stderr
    lines = (git_project.root / ".ralph" / "worklog.jsonl").read_text().splitlines()
    escalations = [e for e in map(json.loads, lines) if e.get("event") == "escalation"]
    assert [(e["kind"], e["choice"]) for e in escalations] == [("convergence", "abort")]


def test_continue_goes_on_and_asks_again_after_patience_more(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "goal\n", "ralph.yaml": "convergence: {patience: 2}\n"})
    git_project.commit_all()
    res = git_project.run(
        "run",
        "--plain",
        *git_project.fake(notes_every_time(20)),
        "-n",
        "8",
        "--on-escalation",
        "continue",
    )
    assert res.exit_code == 3, res  # it went on to the iteration cap
    # asked after rotations 3, 5 and 7: each Continue starts the count again
    assert res.stderr.count("headless: --on-escalation continue") == 3, res.stderr
    assert git_project.state()["specs"][0]["done_count"] == 1


def test_accept_takes_the_spec_as_verified_by_the_user(git_project: Project) -> None:
    git_project.write(
        {
            "PROMPT.md": "goal\n",
            "ralph.yaml": "convergence: {patience: 2}\nfinal_verification: false\n",
        }
    )
    git_project.commit_all()
    res = git_project.run(
        "run",
        "--plain",
        *git_project.fake(notes_every_time(20)),
        "-n",
        "8",
        "--on-escalation",
        "accept",
    )
    assert res.exit_code == 0, res
    spec = git_project.state()["specs"][0]
    assert (spec["done_count"], spec["override"]) == (3, "user_accepted")
    assert len(git_project.rotation_ends()) == 3
