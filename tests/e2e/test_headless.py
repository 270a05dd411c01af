"""Headless output (CI, pipes, --headless), JSON lines, --quiet/--verbose/--no-color, and the
end-of-run reports (--junit, --report-json, GITHUB_STEP_SUMMARY), through the real CLI."""

from __future__ import annotations

import json
import os
import re
import select
import signal
import subprocess
import sys
import time
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Project
from tests.platforms import WINDOWS, posix_signals

ANSI = re.compile(r"\x1b[\[\]()#;?]*[0-9;]*[A-Za-z@-~]?")


DONE: list[dict[str, Any]] = [{"signal": "DONE"}]


STAMP = re.compile(r"^\d\d:\d\d:\d\d ")


def run_in_terminal(
    project: Project, *args: str, env: dict[str, str], stdin_tty: bool = False
) -> tuple[int, str]:
    """`ralph ARGS` with stdout and stderr (and stdin if asked) on a real pseudo-terminal;
    (exit code, output)."""
    if WINDOWS:
        pytest.skip("needs a POSIX pseudo-terminal (pty)")
    import pty

    master, slave = pty.openpty()
    proc = subprocess.Popen(
        [sys.executable, "-m", "ralph", *args],
        cwd=project.root,
        stdin=slave if stdin_tty else subprocess.DEVNULL,
        stdout=slave,
        stderr=slave,
        env={**os.environ, "TERM": "xterm-256color", **env},
    )
    os.close(slave)
    chunks: list[bytes] = []
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        ready, _, _ = select.select([master], [], [], 0.5)
        if ready:
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the terminal's other side closed
                break
            if not data:
                break
            chunks.append(data)
        elif proc.poll() is not None:
            break
    os.close(master)
    code = proc.wait(timeout=30)
    return code, b"".join(chunks).decode("utf-8", "replace")


@pytest.mark.slow
def test_a_terminal_gets_the_live_panel(project: Project) -> None:
    """The control for the headless tests below: on a terminal, escape codes do appear."""
    project.write({"PROMPT.md": "# goal\n"})
    code, out = run_in_terminal(
        project, "run", "--agent-command", project.script({"*": DONE}), env={}
    )
    assert code == 0, out
    assert ANSI.search(out), out


@pytest.mark.slow
@pytest.mark.parametrize(
    ("args", "env"),
    [(("--output", "plain"), {}), (("--headless",), {}), ((), {"CI": "true"}), (("--plain",), {})],
    ids=["--output plain", "--headless", "CI=true", "--plain"],
)
def test_headless_on_a_terminal_prints_plain_lines_without_ansi(
    project: Project, args: tuple[str, ...], env: dict[str, str]
) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    agent = project.script({"*": [{"say": "\x1b[31mred words\x1b[0m", "signal": "DONE"}]})
    code, out = run_in_terminal(project, "run", "--agent-command", agent, "-v", *args, env=env)
    assert code == 0, out
    assert "\x1b" not in out, repr(out)
    lines = [line for line in out.replace("\r\n", "\n").splitlines() if line]
    assert all(STAMP.match(line) for line in lines), lines
    text = "\n".join(lines)
    assert "rotation 1/20 [IMPLEMENT] PROMPT.md" in text  # start: spec, mode, agent
    assert "rotation 1 ended: DONE, 0 files changed, PROMPT.md 1/3" in text
    assert "| red words" in text  # --verbose: the agent's output, cleaned
    assert "run ended: every spec verified (3/3) (exit 0)" in text


def test_headless_pipe_output_has_every_event_and_no_ansi(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "specs/b.spec.md": "# b\n"})
    agent = project.script(
        {"PROMPT.md": DONE, "specs/b.spec.md": [{"write": {"x.txt": "1"}, "signal": "STUCK"}]}
    )
    res = project.run_subprocess("run", "--agent-command", agent)
    assert res.exit_code == 5, res
    assert "\x1b" not in res.stdout + res.stderr
    text = res.stdout
    assert "run started: agent" in text
    assert "[IMPLEMENT] specs/b.spec.md" in text
    assert "rotation 2 ended: STUCK, 1 file changed, specs/b.spec.md 0/3" in text
    assert "run ended: the agent is stuck on specs/b.spec.md (exit 5)" in text
    assert all(STAMP.match(line) or line.startswith(" ") for line in text.splitlines())


def json_events(stdout: str) -> list[dict[str, Any]]:
    events = [json.loads(line) for line in stdout.splitlines()]
    assert all(isinstance(e, dict) and "ts" in e and "event" in e for e in events)
    return events


def test_log_format_json_prints_one_object_per_event(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    agent = project.fake({"*": [{"say": "\x1b[1mbold\x1b[0m", "signal": "DONE"}]})
    res = project.run("run", *agent, "--log-format", "json", "-n", "2")
    assert res.exit_code == 3, res
    events = json_events(res.stdout)
    names = [e["event"] for e in events]
    assert names == [
        "run_started",
        "rotation_started",
        "rotation_ended",
        "rotation_started",
        "rotation_ended",
        "run_ended",
    ]
    first_end = events[2]
    assert first_end["spec"] == "PROMPT.md"
    assert first_end["signal"] == "DONE"
    assert first_end["files_changed"] == 0
    assert first_end["done_count"] == 1
    assert first_end["matrix"][0]["needs_work"] is True
    assert events[1]["mode"] == "IMPLEMENT" and events[3]["mode"] == "REVIEW"
    assert events[-1]["exit_code"] == 3
    assert "max iterations" in events[-1]["reason"]


def test_log_format_json_verbose_adds_clean_agent_output(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    agent = project.fake({"*": [{"say": "\x1b[1mbold\x1b[0m", "signal": "DONE"}]})
    res = project.run("run", *agent, "--log-format", "json", "-v", "-n", "1")
    outputs = [e for e in json_events(res.stdout) if e["event"] == "agent_output"]
    lines = [line for e in outputs for line in e["lines"]]
    assert "bold" in lines
    assert not any("\x1b" in line for line in lines)


def test_log_format_rejects_unknown_values(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", "--agent", "demo", "--log-format", "xml")
    assert res.exit_code == 2, res
    assert not (project.root / ".ralph").exists()


def test_quiet_prints_only_warnings_and_the_end(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", *project.fake({"*": DONE}), "--quiet")
    assert res.exit_code == 0, res
    lines = res.stdout.splitlines()
    assert len(lines) == 1, lines
    assert "run ended: every spec verified (3/3) (exit 0)" in lines[0]


def test_quiet_and_verbose_together_are_a_usage_error(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", "--agent", "demo", "-q", "-v")
    assert res.exit_code == 2, res
    assert "--quiet and --verbose" in res.stderr


def test_verbose_shows_the_agent_output_and_default_does_not(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    agent = project.fake({"*": [{"say": "hello from the agent", "signal": "DONE"}]})
    quiet = project.run("run", *agent, "-n", "1")
    assert "hello from the agent" not in quiet.stdout
    loud = project.run("run", *agent, "-n", "1", "--verbose")
    assert "  | hello from the agent" in loud.stdout


@pytest.mark.slow
@pytest.mark.parametrize("how", ["--no-color", "--output no-color", "NO_COLOR", ""])
def test_no_color_on_a_terminal_keeps_the_panel_without_colours(project: Project, how: str) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    args = ["run", "--agent-command", project.script({"*": DONE})]
    env = {"NO_COLOR": "1"} if how == "NO_COLOR" else {}
    if how.startswith("--"):
        args += how.split()
    code, out = run_in_terminal(project, *args, env=env)
    assert code == 0, out
    colours = re.findall(r"\x1b\[(?:[0-9;]*;)?(3[0-7]|9[0-7]|38;[25];[0-9;]+)m", out)
    assert bool(colours) is (how == ""), colours  # the control: colours when not asked
    assert "every spec verified" in out


def two_spec_run(project: Project, *extra: str, env: dict[str, str] | None = None) -> Any:
    """PROMPT.md gets verified in 3 rotations; specs/b.spec.md says DONE twice, then CONTINUE
    for ever: after 7 rotations, max iterations (exit 3) with b at 2/3 after 4 rotations."""
    project.write({"PROMPT.md": "# goal\n", "specs/b.spec.md": "# b\n"})
    agent = project.fake(
        {"PROMPT.md": DONE, "specs/b.spec.md": [*DONE, *DONE, {"signal": "CONTINUE"}]}
    )
    old = {k: os.environ.get(k) for k in (env or {})}
    os.environ.update(env or {})
    try:
        return project.run("run", *agent, "-n", "7", *extra)
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_junit_report_one_testcase_per_spec(project: Project, tmp_path: Path) -> None:
    report = tmp_path / "reports" / "junit.xml"  # its folder is created
    res = two_spec_run(project, "--junit", str(report))
    assert res.exit_code == 3, res
    root = ET.parse(report).getroot()
    assert root.tag == "testsuites"
    suite = root.find("testsuite")
    assert suite is not None
    assert suite.get("tests") == "2" and suite.get("failures") == "1"
    cases = {c.get("name"): c for c in suite.iter("testcase")}
    assert set(cases) == {"PROMPT.md", "specs/b.spec.md"}
    passed, failed = cases["PROMPT.md"], cases["specs/b.spec.md"]
    assert passed.find("failure") is None
    failure = failed.find("failure")
    assert failure is not None
    message = failure.get("message") or ""
    assert "counter 2/3" in message and "last status CONTINUE" in message
    assert "max iterations reached" in message

    def prop(case: ET.Element, name: str) -> str | None:
        found = [p.get("value") for p in case.iter("property") if p.get("name") == name]
        return found[0] if found else None

    assert prop(passed, "rotations") == "3"
    assert prop(failed, "rotations") == "4"
    assert float(passed.get("time") or "-1") >= 0
    assert float(failed.get("time") or "-1") >= 0


def test_report_json_has_the_final_matrix_and_totals(project: Project, tmp_path: Path) -> None:
    path = tmp_path / "report.json"
    res = two_spec_run(project, "--report-json", str(path))
    assert res.exit_code == 3, res
    data = json.loads(path.read_text())
    assert data["exit_code"] == 3
    assert data["complete"] is False
    assert data["totals"]["specs"] == 2
    assert data["totals"]["verified"] == 1
    assert data["totals"]["rotations"] == 7
    rows = {s["path"]: s for s in data["specs"]}
    assert rows["PROMPT.md"]["done_count"] == 3 and rows["PROMPT.md"]["verified"] is True
    assert rows["specs/b.spec.md"]["last_status"] == "CONTINUE"
    assert data["iteration"] == 7


def test_github_step_summary_is_appended(project: Project, tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    res = two_spec_run(project, env={"GITHUB_STEP_SUMMARY": str(summary)})
    assert res.exit_code == 3, res
    text = summary.read_text()
    assert text.startswith("earlier step\n")
    assert "## ralph: ❌ stopped (exit 3)" in text
    assert "| `PROMPT.md` | 3/3 | DONE | 3 |" in text
    assert "| `specs/b.spec.md` | 2/3 | CONTINUE | 4 |" in text
    assert "1/2 specs verified" in text


def test_no_step_summary_without_the_variable(project: Project, tmp_path: Path) -> None:
    res = two_spec_run(project)
    assert res.exit_code == 3
    assert not list(tmp_path.glob("*.md"))


def test_reports_are_written_when_the_run_fails_to_start(project: Project, tmp_path: Path) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    junit, data = tmp_path / "j.xml", tmp_path / "r.json"
    res = project.run(
        "run",
        "--agent-command",
        "no-such-agent-xyz",
        "--junit",
        str(junit),
        "--report-json",
        str(data),
    )
    assert res.exit_code == 1, res
    report = json.loads(data.read_text())
    assert report["exit_code"] == 1
    assert "agent command not found" in report["reason"]
    case = ET.parse(junit).getroot().find("testsuite/testcase")
    assert case is not None and case.find("failure") is not None


@posix_signals
@pytest.mark.slow
def test_reports_are_written_when_the_run_is_interrupted(project: Project, tmp_path: Path) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    junit = tmp_path / "j.xml"
    agent = project.script({"*": [{"sleep": 60, "signal": "DONE"}]})
    proc = subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", "--agent-command", agent, "--junit", str(junit)],
        cwd=project.root,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 30
        while not project.calls() and time.monotonic() < deadline:
            time.sleep(0.05)
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 130
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    failure = ET.parse(junit).getroot().find("testsuite/testcase/failure")
    assert failure is not None
    assert "interrupted" in (failure.get("message") or "")


def test_reports_replace_the_old_file_atomically(project: Project, tmp_path: Path) -> None:
    junit = tmp_path / "j.xml"
    junit.write_text("old")
    res = two_spec_run(project, "--junit", str(junit))
    assert res.exit_code == 3
    ET.parse(junit)  # a whole, valid document
    assert sorted(p.name for p in tmp_path.iterdir() if p.name.startswith(".")) == []


def test_a_report_that_cannot_be_written_keeps_the_exit_code(
    project: Project, tmp_path: Path
) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    res = two_spec_run(project, "--junit", str(blocker / "j.xml"))
    assert res.exit_code == 3, res
    assert "cannot write the report" in res.stderr


def test_a_report_inside_the_project_is_not_a_change_for_the_next_run(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    agent = git_project.fake({"*": DONE})
    first = git_project.run("run", *agent, "--junit", "out/junit.xml")
    assert first.exit_code == 0, first
    again = git_project.run("run", *agent, "--junit", "out/junit.xml")
    assert again.exit_code == 0, again
    assert "files changed since the last run" not in again.stdout
    assert git_project.counts() == {"PROMPT.md": 3}
    assert len(git_project.calls()) == 3  # the second run had nothing to do
