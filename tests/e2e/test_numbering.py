"""Rotation numbers and the history: a number names one rotation for the life of the project
(across runs, `ralph reset` and a lost state file), the final verification is listed like any
rotation, a run shows its own budget, and `--spec` takes an unambiguous part of a path."""

from __future__ import annotations

import json

from tests.conftest import Project

DONE = [{"signal": "DONE"}]


def history(project: Project, *args: str) -> list[dict[str, object]]:
    res = project.run("history", "--json", *args)
    assert res.exit_code == 0, res
    data = json.loads(res.stdout)["rotations"]
    assert isinstance(data, list)
    return data


def test_history_lists_the_final_verification_as_a_rotation(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "# goal\n", "specs/api.spec.md": "# api\n"})
    assert git_project.run("run", *git_project.fake({"*": DONE})).exit_code == 0
    rows = history(git_project)
    assert [r["number"] for r in rows] == [1, 2, 3, 4, 5, 6, 7]  # no gap where VERIFY ran
    last = rows[-1]
    assert (last["mode"], last["spec"], last["signal"]) == ("VERIFY", "(all specs)", "VERIFY_PASS")
    assert last["agent"] and last["log"] == ".ralph/history/final-verification/007.log"
    table = git_project.run("history").stdout.splitlines()
    assert table[-1].split()[:1] == ["7"] and "VERIFY_PASS" in table[-1]
    # its log is found by number like any other
    assert "final verification 1 (rotation 7)" in git_project.run("history", "7").stdout


def test_rotation_numbers_never_restart_after_a_reset(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.fake({"*": [{"signal": "CONTINUE"}]})
    assert git_project.run("run", *cmd, "-n", "2").exit_code == 3
    res = git_project.run("reset")
    assert "rotation numbers go on from 3" in res.stdout
    assert git_project.state()["iteration"] == 0  # the count since the reset starts over
    assert git_project.state()["last_rotation"] == 2
    assert git_project.run("run", *cmd, "-n", "2").exit_code == 3
    assert [r["number"] for r in history(git_project)] == [1, 2, 3, 4]
    assert [c["iteration"] for c in git_project.calls()] == ["1", "2", "3", "4"]
    status = json.loads(git_project.run("status", "--json").stdout)
    assert (status["iteration"], status["last_rotation"]) == (2, 4)
    logs = sorted(p.name for p in (git_project.root / ".ralph/history").rglob("*.log"))
    assert logs == ["001.log", "002.log", "003.log", "004.log"]


def test_a_lost_state_file_does_not_reuse_numbers(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.fake({"*": [{"signal": "CONTINUE"}]})
    assert git_project.run("run", *cmd, "-n", "2").exit_code == 3
    (git_project.root / ".ralph/state.json").unlink()
    assert git_project.run("run", *cmd, "-n", "1").exit_code == 3
    assert [c["iteration"] for c in git_project.calls()] == ["1", "2", "3"]


def test_each_run_shows_its_own_budget(git_project: Project) -> None:
    git_project.write({"PROMPT.md": "x\n"})
    cmd = git_project.fake({"*": [{"signal": "CONTINUE"}]})
    for _ in range(2):
        res = git_project.run("run", *cmd, "-n", "2", "--log-format", "json")
        assert res.exit_code == 3, res
    events = [json.loads(line) for line in res.stdout.splitlines()]
    started = [e for e in events if e["event"] == "rotation_started"]
    assert [(e["iteration"], e["run_iteration"], e["max_iterations"]) for e in started] == [
        (3, 1, 2),
        (4, 2, 2),
    ]
    ended = events[-1]
    assert (ended["iteration"], ended["run_iteration"], ended["max_iterations"]) == (4, 2, 2)
    assert git_project.state()["max_iterations"] == 2
    plain = git_project.run("run", *cmd, "-n", "2", "--headless").stdout
    assert "rotation 5 (1/2 this run) [IMPLEMENT] PROMPT.md" in plain
    assert "last rotation 6 (2/2 this run)" in plain


def test_history_spec_takes_an_unambiguous_part_of_the_path(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "specs/classify.spec.md": "# c\n"})
    assert project.run("run", *project.fake({"*": DONE}), "-n", "2").exit_code == 3
    rows = history(project, "--spec", "classify")
    assert rows and {r["spec"] for r in rows} == {"specs/classify.spec.md"}
    assert history(project, "--spec", "./specs/classify.spec.md") == rows
    assert {r["spec"] for r in history(project, "--spec", "prompt")} == {"PROMPT.md"}
    both = project.run("history", "--spec", ".md")
    assert both.exit_code == 2, both
    assert "--spec .md matches 2 specs: PROMPT.md, specs/classify.spec.md" in both.stderr
    none = project.run("history", "--spec", "nope")
    assert none.exit_code == 0 and none.stdout == "no rotations of nope recorded yet\n"
