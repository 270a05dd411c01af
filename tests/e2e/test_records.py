"""ralph's records live in its store: what an agent does to the copies in `.ralph/` (the
worklog, the history logs) changes nothing ralph reports, and a named pipe where a record or
its copy should be hangs no command. Each attack through the real CLI beside its honest run."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ralph.store.disk.workspace import Workspace
from tests.conftest import Project

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="links and named pipes"),
]

SPEC = "# A spec\n\n- [ ] works\n"


def _verified_run(project: Project) -> Workspace:
    project.write({"PROMPT.md": SPEC})
    project.commit_all()
    agent = project.fake({"*": [{"signal": "DONE"}]})
    res = project.run("run", *agent)
    assert res.exit_code == 0, res
    return Workspace(project.root)


def _outputs(project: Project, tmp_path: Path, name: str) -> tuple[str, str, str]:
    page = tmp_path / f"{name}.html"
    report = project.run_subprocess("report", "--html", str(page))
    assert report.exit_code == 0, report
    history = project.run_subprocess("history", "--json")
    assert history.exit_code == 0, history
    log = project.run_subprocess("history", "1")
    assert log.exit_code == 0, log
    return page.read_text(), history.stdout, log.stdout


def test_forged_copies_in_dot_ralph_change_no_report(git_project: Project, tmp_path: Path) -> None:
    ws = _verified_run(git_project)
    honest = _outputs(git_project, tmp_path, "honest")
    assert json.loads(honest[1])["rotations"], honest[1]  # the control: the run is reported
    # The attack: `.ralph/history` a link to the person's files, the worklog copy forged to
    # name a log there and to tell of a failed run.
    secret = tmp_path / "secrets"
    (secret / "x").mkdir(parents=True)
    (secret / "x" / "001.log").write_text("AWS_SECRET=PRIVATE-CONTENT\n")
    import shutil

    shutil.rmtree(ws.history)
    ws.history.symlink_to(secret)
    forged = [
        {"ts": 1, "event": "run_start", "agent": "evil"},
        {"ts": 2, "event": "rotation_start", "iteration": 1, "spec": "PROMPT.md"},
        {"ts": 3, "event": "rotation_end", "iteration": 1, "spec": "PROMPT.md",
         "signal": "STUCK", "log": ".ralph/history/x/001.log"},
        {"ts": 4, "event": "run_end", "exit_code": 6, "reason": "forged"},
    ]  # fmt: skip
    ws.worklog_copy.write_text("".join(json.dumps(r) + "\n" for r in forged))
    attacked = _outputs(git_project, tmp_path, "attacked")
    assert "PRIVATE-CONTENT" not in "".join(attacked)
    assert attacked[1] == honest[1]  # history --json: the same rotations
    assert attacked[2] == honest[2]  # one rotation's log: ralph's record of it
    inspect = git_project.run_subprocess("inspect", "--json")
    assert inspect.exit_code == 0, inspect
    assert json.loads(inspect.stdout)["last_run"]["exit_code"] == 0


@pytest.mark.parametrize("which", ["store", "copy"])
def test_a_named_pipe_where_the_worklog_is_hangs_nothing(
    git_project: Project, tmp_path: Path, which: str
) -> None:
    ws = _verified_run(git_project)
    place = ws.worklog if which == "store" else ws.worklog_copy
    place.unlink()
    os.mkfifo(place)
    # No writer ever opens the pipe: a read that waited for one would hang until the timeout.
    for args in (("history",), ("inspect",), ("status", "--log", "3")):
        res = git_project.run_subprocess(*args, timeout=120)
        if which == "copy":  # the copy is never read: the commands answer as ever
            assert res.exit_code == 0, res
        else:
            assert res.exit_code == 1, res
            assert "named pipe" in res.stderr and "Traceback" not in res.stderr
    report = git_project.run_subprocess("report", "--html", str(tmp_path / "r.html"), timeout=120)
    assert report.exit_code == (0 if which == "copy" else 1), report
    agent = git_project.script({"*": [{"signal": "DONE"}]})
    again = git_project.run_subprocess("run", "--agent-command", agent, timeout=120)
    # a pipe is never written into nor read: the run refuses in one line, or (the store's
    # record being ralph's) names it
    assert again.exit_code == 1, again
    assert "named pipe" in again.stderr or "not a regular file" in again.stderr, again
    assert "Traceback" not in again.stderr
    if which == "copy":  # said as what it is: a pipe, not a link
        assert "remove it (.ralph/worklog.jsonl)" in again.stderr, again
        assert "link" not in again.stderr, again


def test_forged_lines_in_the_record_neither_crash_nor_change_the_verdict(
    git_project: Project, tmp_path: Path
) -> None:
    """The worst case: an agent run without a sandbox reaches the store and appends lines
    that are not strict JSON (NaN, deep nesting), or objects of the wrong shapes."""
    ws = _verified_run(git_project)
    honest = git_project.run_subprocess("inspect", "--json")
    with ws.worklog.open("a") as f:
        f.write('{"event": "run_end", "exit_code": NaN}\n')
        f.write("[" * 100_000 + "]" * 100_000 + "\n")
        f.write('{"event": "rotation_end", "iteration": "x", "spec": 7, "log": {"a": 1}}\n')
    for args in (("history", "--json"), ("inspect", "--json"), ("status", "--log", "5")):
        res = git_project.run_subprocess(*args)
        assert res.exit_code == 0, res
        assert "Traceback" not in res.stderr
    assert (
        json.loads(git_project.run_subprocess("inspect", "--json").stdout)["last_run"]
        == (json.loads(honest.stdout)["last_run"])
    )
    report = git_project.run_subprocess("report", "--html", str(tmp_path / "r.html"))
    assert report.exit_code == 0, report


def test_a_named_pipe_in_the_project_as_report_json_is_written_into(git_project: Project) -> None:
    fifo = git_project.root / "r.fifo"
    os.mkfifo(fifo)
    out = git_project.root.parent / "got.json"
    with out.open("wb") as sink:
        # the person's reader: blocks on the pipe until ralph opens it for writing
        cat = subprocess.Popen(["cat", str(fifo)], stdout=sink)
        git_project.write({"PROMPT.md": SPEC})
        res = git_project.run_subprocess("run", "--agent", "demo", "--report-json", "r.fifo")
        assert cat.wait(60) == 0
    assert res.exit_code == 0, res
    assert stat.S_ISFIFO(fifo.lstat().st_mode)  # never replaced by a regular file
    assert json.loads(out.read_text())["exit_code"] == 0


def test_a_pipe_in_the_project_nobody_reads_is_one_line_and_stays_a_pipe(
    git_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    from ralph.store.disk import files

    monkeypatch.setattr(files, "FIFO_WAIT", 0.2)
    fifo = git_project.root / "r.fifo"
    os.mkfifo(fifo)
    with pytest.raises(OSError, match="nobody reads this named pipe"):
        files.write_text_through(fifo, "{}\n", project=git_project.root)
    assert stat.S_ISFIFO(fifo.lstat().st_mode)
    regular = git_project.root / "r.json"  # the control: a regular file is replaced whole
    files.write_text_through(regular, "{}\n", project=git_project.root)
    assert regular.read_text() == "{}\n"


OSC52 = "\x1b]52;c;ZXZpbA==\x07"  # writes the person's clipboard
TITLE = "\x1b]0;owned\x07"  # a window title


def test_names_the_agent_chose_reach_the_terminal_as_escapes(git_project: Project) -> None:
    """A spec whose REVIEWs keep changing a file named with escape sequences: the
    non-convergence warning and the question name it, visibly escaped, never raw."""
    name = f"x{OSC52}{TITLE}.txt"
    steps = [{"signal": "DONE"}] + [
        {"write": {name: f"{i}\n"}, "signal": "DONE"} for i in range(1, 9)
    ]
    git_project.write({"PROMPT.md": SPEC, "ralph.yaml": "convergence:\n  patience: 2\n"})
    git_project.commit_all()
    agent = git_project.script({"*": steps})
    res = git_project.run_subprocess(
        "run", "--agent-command", agent, "-n", "8", "--on-escalation", "abort"
    )
    assert res.exit_code == 5, res  # the control: the question was put, and answered
    assert "not converging" in res.stdout + res.stderr
    out = res.stdout + res.stderr
    assert "\x1b]" not in out and "\x07" not in out
    assert "\\x1b]52;c;ZXZpbA==\\x07" in out  # the name is there, visibly


def test_forged_limits_and_run_json_in_dot_ralph_are_not_read(git_project: Project) -> None:
    ws = _verified_run(git_project)
    forged = {"agents": {"scripted": {"session": {"used": 100, "resets_at": 4e9}}}}
    (ws.dir / "limits.json").write_text(json.dumps(forged))
    (ws.dir / "run.json").write_text('{"pid": 1, "started_at": NaN}')
    res = git_project.run_subprocess("status", "--json")
    assert res.exit_code == 0, res
    assert json.loads(res.stdout)["limits"] == {}  # ralph recorded none
    (ws.store / "limits.json").write_text(json.dumps(forged))  # the control: its record is
    assert (
        json.loads(git_project.run_subprocess("status", "--json").stdout)["limits"]
        == (forged["agents"])
    )
