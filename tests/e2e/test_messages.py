"""Messages say what they mean: counted words agree with their count ("1 rotation")."""

from __future__ import annotations

import re

from ralph.ui.reports import markdown_summary
from ralph.ui.runreport import RunReport, SpecReport
from tests.conftest import Project

ONE_PLURAL = re.compile(r"(?<![/\d])\b1 (?:\w+ )?(?:rotations|times|failures|specs|files|lines)\b")


def test_one_rotation_is_not_one_rotations(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    res = git_project.run("run", *git_project.fake({"*": [{"signal": "CONTINUE"}]}), "-n", "1")
    assert res.exit_code == 3, res
    assert "max iterations reached (1 rotation this run)" in res.stdout
    assert not ONE_PLURAL.search(res.stdout + res.stderr), res
    summary = markdown_summary(RunReport(exit_code=3, specs=(SpecReport("a", rotations=1),)))
    assert "1 rotation this run" in summary and not ONE_PLURAL.search(summary)


def test_one_failed_verification_is_one_time(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n", "ralph.yaml": "max_verification_failures: 1\n"})
    cmd = git_project.fake({"*": [{"signal": "DONE"}], "VERIFY": [{"signal": "VERIFY_FAIL"}]})
    res = git_project.run("run", *cmd)
    assert res.exit_code == 6, res
    assert "final verification failed 1 time in a row" in res.stdout
    assert not ONE_PLURAL.search(res.stdout + res.stderr), res


def test_a_refusal_note_leaves_the_handoff_once_a_done_passes(git_project: Project) -> None:
    p = git_project
    spec = "---\ntest_command: 'test -f fixed.txt || { echo 2 tests failed; exit 1; }'\n---\n# g\n"
    p.write({"PROMPT.md": spec})
    steps = [
        {"say": "done, I think", "signal": "DONE"},  # refused: the tests fail
        {"write": {"fixed.txt": "1"}, "signal": "DONE"},  # fixed: passes, 1/3
        {"signal": "DONE"},
    ]
    res = p.run("run", *p.fake({"*": steps}), "-n", "3")
    assert res.exit_code == 3, res
    statuses = [e["signal"] for e in p.worklog("rotation_end")]
    assert statuses == ["REFUSED", "DONE", "DONE"]
    handoff = next((p.root / ".ralph/handoffs").iterdir()).read_text()
    assert "your DONE was refused" not in handoff and "2 tests failed" not in handoff
    # what the checks said stays on record, out of the prompts' way
    kept = next((p.root / ".ralph/history").glob("*/refused.md")).read_text()
    assert "your DONE was refused" in kept and "2 tests failed" in kept
    # the third rotation's prompt was built after the pass: no stale refusal in it
    prompt = (p.root / ".ralph/prompt.md").read_text()
    assert "your DONE was refused" not in prompt
