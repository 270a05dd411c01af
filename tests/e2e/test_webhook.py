"""`notify: {webhook: URL}`: JSON POSTs at the end of a run and when it needs a person, against a
real HTTP receiver on 127.0.0.1; one that fails or hangs never changes how a run ends, and the
URL (a secret) never shows in ralph's output."""

from __future__ import annotations

import time

import pytest

from ralph.ui import webhook
from tests.commands.test_webhooks import SECRET, Receiver, hanging, receiver  # noqa: F401
from tests.conftest import Project

SPEC = "# goal\n- [x] the work\n"


def _config(project: Project, url: str) -> None:
    project.write({"ralph.yaml": f"notify:\n  webhook: {url}\n", "PROMPT.md": SPEC})


def test_the_receiver_gets_run_end_with_the_outcome(
    git_project: Project,
    receiver: Receiver,  # noqa: F811
) -> None:
    _config(git_project, receiver.url)
    res = git_project.run("run", "--agent", "demo")
    assert res.exit_code == 0, res
    (end,) = receiver.bodies
    assert end["event"] == "run_end"
    assert end["exit_code"] == 0
    assert end["reason"] == "every spec verified (3/3)"
    assert end["project"] == git_project.root.name
    assert end["specs"] == [
        {"path": "PROMPT.md", "done_count": 3, "verified": True, "last_status": "DONE"}
    ]
    assert "every spec verified" in end["text"]  # what Slack shows
    assert SECRET not in res.stdout + res.stderr


def test_a_question_is_sent_then_the_end_of_the_run(
    git_project: Project,
    receiver: Receiver,  # noqa: F811
) -> None:
    _config(git_project, receiver.url)
    ask = {"write": {".ralph/question.md": "REST or gRPC?\n"}, "signal": "QUESTION"}
    res = git_project.run("run", *git_project.fake({"*": [ask]}))
    assert res.exit_code == 5, res
    assert receiver.events() == ["question", "run_end"]
    question = receiver.bodies[0]
    assert question["subject"] == "PROMPT.md"
    assert "question" in question["text"]
    assert receiver.bodies[1]["exit_code"] == 5


def test_an_escalation_is_sent_before_the_choice(git_project: Project, receiver: Receiver) -> None:  # noqa: F811
    _config(git_project, receiver.url)
    git_project.write(
        {"ralph.yaml": f"notify:\n  webhook: {receiver.url}\nbreaker: {{threshold: 1}}\n"}
    )
    res = git_project.run("run", *git_project.fake({"*": [{"exit": 3}]}), "--headless")
    assert res.exit_code == 5, res
    assert receiver.events()[0] == "escalation"
    assert receiver.events()[-1] == "run_end"


@pytest.mark.slow
def test_a_hanging_webhook_does_not_change_the_exit_code_nor_hold_the_run(
    git_project: Project,
    hanging: str,  # noqa: F811
) -> None:
    _config(git_project, hanging)
    started = time.monotonic()
    res = git_project.run("run", "--agent", "demo")
    took = time.monotonic() - started
    assert res.exit_code == 0, res
    assert took < webhook.BOUND + 20  # the demo run itself takes a few seconds
    assert SECRET not in res.stdout + res.stderr


def test_a_failing_webhook_is_one_warning_without_the_secret(git_project: Project) -> None:
    # nothing listens on port 9 of 127.0.0.1 (discard): the connection is refused
    _config(git_project, f"http://127.0.0.1:9/services/{SECRET}")
    res = git_project.run("run", "--agent", "demo")
    assert res.exit_code == 0, res
    assert "warning: webhook to http://127.0.0.1 failed" in res.stderr
    assert SECRET not in res.stdout + res.stderr
    assert SECRET not in (git_project.root / ".ralph/worklog.jsonl").read_text()


def test_the_url_may_come_from_the_environment(
    git_project: Project,
    receiver: Receiver,  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("RALPH_TEST_HOOK", receiver.url)
    _config(git_project, "$RALPH_TEST_HOOK")
    assert git_project.run("run", "--agent", "demo").exit_code == 0
    assert receiver.events() == ["run_end"]


def test_a_url_that_is_not_http_is_one_line_without_the_value(git_project: Project) -> None:
    _config(git_project, f"ftp://example.com/{SECRET}")
    res = git_project.run("run", "--agent", "demo")
    assert res.exit_code == 1
    assert "notify.webhook" in res.stderr and "http://" in res.stderr
    assert SECRET not in res.stderr
    assert "Traceback" not in res.stderr
