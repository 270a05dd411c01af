"""QUESTION / answer round trip, GUTTER, and the run's progress.md and errors.log."""

from __future__ import annotations

from tests.conftest import Project

SPEC = "# goal\n- [ ] the work\n"
ASK = {
    "write": {".ralph/question.md": "Should the API use REST or gRPC?\n"},
    "signal": "QUESTION",
}


def test_question_stops_with_exit_five_and_shows_it(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    res = git_project.run("run", *git_project.fake({"*": [ASK]}))
    assert res.exit_code == 5, res
    assert "Should the API use REST or gRPC?" in res.stdout
    assert ".ralph/answer.md" in res.stdout
    assert git_project.state()["specs"][0]["last_status"] == "QUESTION"
    assert [e["spec"] for e in git_project.worklog("question")] == ["PROMPT.md"]


def test_next_run_without_an_answer_starts_no_agent(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    cmd = git_project.fake({"*": [ASK, {"signal": "DONE"}]})
    assert git_project.run("run", *cmd).exit_code == 5
    res = git_project.run("run", *cmd)
    assert res.exit_code == 5, res
    assert "waiting for your answer" in res.stdout
    assert "REST or gRPC" in res.stdout
    assert len(git_project.all_calls()) == 1


def test_the_answer_reaches_the_next_prompt_once_then_both_files_are_archived(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": SPEC})
    cmd = git_project.fake({"*": [ASK, {"signal": "CONTINUE"}, {"signal": "CONTINUE"}]})
    assert git_project.run("run", *cmd).exit_code == 5
    git_project.write({".ralph/answer.md": "Use REST, with JSON bodies.\n"})
    res = git_project.run("run", *cmd, "-n", "2")
    assert res.exit_code == 3, res
    first, second = git_project.calls()[1:]
    history = sorted((git_project.root / ".ralph/history").rglob("*.log"))
    assert len(history) == 3
    ralph = git_project.root / ".ralph"
    assert not (ralph / "question.md").exists()
    assert not (ralph / "answer.md").exists()
    (archived,) = (ralph / "archive/questions").iterdir()
    assert (archived / "question.md").read_text() == "Should the API use REST or gRPC?\n"
    assert (archived / "answer.md").read_text() == "Use REST, with JSON bodies.\n"
    assert first["iteration"] == "2" and second["iteration"] == "3"
    delivered = git_project.worklog("answer_delivered")
    assert len(delivered) == 1  # the second rotation did not get it again


def test_the_prompt_carries_question_and_answer(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    # the second rotation echoes its prompt, so the test can read what ralph sent
    cmd = git_project.fake({"*": [ASK, {"echo_prompt": True, "signal": "CONTINUE"}]})
    assert git_project.run("run", *cmd).exit_code == 5
    git_project.write({".ralph/answer.md": "Use REST.\n"})
    assert git_project.run("run", *cmd, "-n", "1").exit_code == 3
    log = next((git_project.root / ".ralph/history").rglob("002.log")).read_text()
    assert "## A question an agent asked, and the human's answer" in log
    assert "Should the API use REST or gRPC?" in log
    assert "Use REST." in log


def test_a_question_signal_without_the_file_keeps_the_agents_words(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    cmd = git_project.fake({"*": [{"say": "Which database, Postgres?", "signal": "QUESTION"}]})
    res = git_project.run("run", *cmd)
    assert res.exit_code == 5, res
    text = (git_project.root / ".ralph/question.md").read_text()
    assert "Which database, Postgres?" in text
    assert "Which database, Postgres?" in res.stdout


def test_gutter_is_stuck(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    res = git_project.run("run", *git_project.fake({"*": [{"signal": "GUTTER"}]}))
    assert res.exit_code == 5, res
    assert git_project.state()["specs"][0]["last_status"] == "STUCK"


def test_progress_gets_one_line_per_rotation_and_verification(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    git_project.write({"ralph.yaml": "max_verification_failures: 1\n"})
    cmd = git_project.fake(
        {
            "*": [{"write": {"a.py": "1"}, "signal": "DONE"}, {"signal": "DONE"}],
            "VERIFY": [{"signal": "VERIFY_FAIL"}],
        }
    )
    assert git_project.run("run", *cmd).exit_code == 6
    lines = [
        line
        for line in (git_project.root / ".ralph/progress.md").read_text().splitlines()
        if line.startswith("- ")
    ]
    assert len(lines) == 4
    assert "rotation 1 [IMPLEMENT] PROMPT.md: DONE, 1 file(s) changed, 1/3" in lines[0]
    assert "rotation 3 [REVIEW] PROMPT.md: DONE, 0 file(s) changed, 3/3" in lines[2]
    assert "final verification 1 (rotation 4): FAIL: the verifier answered VERIFY_FAIL" in lines[3]


def test_errors_log_gets_every_failure_and_the_next_prompt_warns(git_project: Project) -> None:
    git_project.write({"PROMPT.md": SPEC})
    cmd = git_project.fake(
        {"*": [{"say": "crash", "exit": 3}, {"echo_prompt": True, "signal": "CONTINUE"}]}
    )
    res = git_project.run("run", *cmd, "-n", "2")
    assert res.exit_code == 3, res
    errors = (git_project.root / ".ralph/errors.log").read_text().splitlines()
    assert len(errors) == 1
    assert "rotation 1 PROMPT.md [IMPLEMENT] failed: exit code 3" in errors[0]
    log = next((git_project.root / ".ralph/history").rglob("002.log")).read_text()
    assert "## Recent failures (.ralph/errors.log): do not repeat them" in log
    assert "failed: exit code 3" in log.split("## Recent failures")[1]
