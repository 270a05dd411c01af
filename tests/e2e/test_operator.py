"""The operator's tools through the real CLI: history, inspect (--follow), cancel (both modes)
against a live run in another process, status --watch, --continue, completion and --notify."""

from __future__ import annotations

import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any

import psutil
import pytest

from tests.conftest import FAKES, Project
from tests.e2e.test_headless import run_in_terminal
from tests.platforms import WINDOWS, posix_shell, posix_signals

DONE: list[dict[str, Any]] = [{"signal": "DONE"}]


def wait_for(predicate: Callable[[], bool], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return
        time.sleep(0.05)
    raise AssertionError("condition not met in time")


@contextmanager
def live_run(project: Project, agent: str, *args: str) -> Iterator[subprocess.Popen[str]]:
    """`ralph run` as a real process with its agent started; always cleaned up."""
    proc = subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", "--agent-command", agent, *args],
        cwd=project.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        run_json = project.root / ".ralph" / "run.json"

        def agent_started() -> bool:
            try:
                return "agent_pid" in json.loads(run_json.read_text())
            except (OSError, ValueError):
                return False

        wait_for(agent_started)
        yield proc
    finally:
        if proc.poll() is None:  # the test failed midway: take the agent down too
            try:
                tree = psutil.Process(proc.pid).children(recursive=True)
            except psutil.NoSuchProcess:
                tree = []
            proc.kill()
            for child in tree:
                with suppress(psutil.NoSuchProcess):
                    child.kill()
        proc.communicate(timeout=30)


def agent_pid(project: Project) -> int:
    pid = json.loads((project.root / ".ralph" / "run.json").read_text())["agent_pid"]
    assert isinstance(pid, int)
    return pid


def gone(pid: int) -> bool:
    try:
        return psutil.Process(pid).status() == psutil.STATUS_ZOMBIE
    except psutil.NoSuchProcess:
        return True


@pytest.mark.slow
def test_cancel_stops_the_run_after_the_current_rotation(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    # the rotation ends once the run has said it heard the cancel (an event, not a guess)
    gate = project.root.parent / "gate"
    wait = f'"{sys.executable}" "{FAKES / "gate.py"}" "{gate}"'
    agent = project.script({"*": [{"run": wait, "write": {"a.txt": "1"}, "signal": "CONTINUE"}]})
    with live_run(project, agent) as proc:
        res = project.run_subprocess("cancel")
        assert res.exit_code == 0, res
        assert f"run pid {proc.pid} stops after the current rotation" in res.stdout
        said = lines_of(proc)
        printed: list[str] = []
        while not any("ralph cancel: stopping after" in line for line in printed):
            line = said.get(timeout=120)
            assert line is not None, printed  # the run ended without saying it heard
            printed.append(line)
        gate.touch()
        while (line := said.get(timeout=120)) is not None:
            printed.append(line)
        out = "".join(printed)
        assert proc.wait(timeout=60) == 130, out
    assert "cancelled (ralph cancel): stopped after the current rotation" in out
    # said while the rotation still ran, before its line: the user sees the request was heard
    lines = out.splitlines()
    heard = next(i for i, line in enumerate(lines) if "ralph cancel: stopping after" in line)
    ended = next(i for i, line in enumerate(lines) if "rotation 1 ended" in line)
    assert heard < ended, out
    assert len(project.calls()) == 1  # no second rotation started
    state = project.state()
    assert state["specs"][0]["last_status"] == "CONTINUE"  # the rotation finished normally
    assert (project.root / "a.txt").read_text() == "1"
    assert not (project.root / ".ralph" / "cancel.json").exists()


@pytest.mark.slow
def test_cancel_now_stops_the_agent_tree_and_saves_state(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    # The agent forks a daemon grandchild that outlives it by far: it must go too.
    grandchild = project.root.parent / "grandchild.pid"
    agent = f"{sys.executable} {FAKES / 'forker.py'} {grandchild} 120"
    with live_run(project, agent) as proc:
        pid = agent_pid(project)
        wait_for(grandchild.exists)
        started = time.monotonic()
        res = project.run_subprocess("cancel", "--now", "--wait")
        assert res.exit_code == 0, res
        assert "stops its agent now" in res.stdout and "the run has stopped" in res.stdout
        out, _err = proc.communicate(timeout=60)
        assert proc.returncode == 130, out
        assert time.monotonic() - started < 60  # not the agent's 120 s
    assert "cancelled now (ralph cancel --now)" in out
    wait_for(lambda: gone(pid), 10)
    wait_for(lambda: gone(int(grandchild.read_text())), 10)
    spec = project.state()["specs"][0]
    assert spec["last_status"] == "ERROR"
    end = project.rotation_ends()[-1]
    assert end["note"] == "cancelled (ralph cancel --now)"


@pytest.mark.slow
def test_cancel_now_stops_running_done_checks(project: Project, tmp_path: Path) -> None:
    marker = tmp_path / "check.pid"
    # at the start (the tests' bar, before the agent wrote x.txt) it passes at once
    command = f"test -e x.txt || exit 0; echo $$ > {marker}; exec sleep 120"
    project.write({"PROMPT.md": f"---\ntest_command: {command}\n---\n# goal\n"})
    agent = project.script({"*": [{"write": {"x.txt": "1\n"}, "signal": "DONE"}]})
    proc = subprocess.Popen(
        [sys.executable, "-m", "ralph", "run", "--agent-command", agent],
        cwd=project.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        wait_for(lambda: marker.exists() and marker.read_text().strip().isdigit())
        check = int(marker.read_text())
        started = time.monotonic()
        res = project.run_subprocess("cancel", "--now", "--wait")
        assert res.exit_code == 0, res
        out, _ = proc.communicate(timeout=60)
        assert time.monotonic() - started < 60  # not the check's 120 s
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, out
    assert "cancelled now (ralph cancel --now)" in out
    wait_for(lambda: gone(check), 10)
    assert project.state()["specs"][0]["last_status"] == "ERROR"
    assert project.rotation_ends()[-1]["note"] == (
        "cancelled (ralph cancel --now) while running the DONE checks"
    )


def test_a_stale_cancel_request_does_not_stop_a_later_run(project: Project) -> None:
    from ralph.store.live.cancel import request_cancel

    project.write({"PROMPT.md": "# goal\n"})
    (project.root / ".ralph").mkdir()
    request_cancel(project.root / ".ralph", 999_999, "now")  # for a run long gone
    res = project.run("run", *project.fake({"*": DONE}))
    assert res.exit_code == 0, res
    assert project.counts() == {"PROMPT.md": 3}


def test_inspect_without_a_run(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("inspect")
    assert res.exit_code == 0, res
    assert res.stdout.strip() == "no run is live"
    data = json.loads(project.run("inspect", "--json").stdout)
    assert data == {"schema_version": 1, "running": False}
    assert project.run("run", *project.fake({"*": DONE})).exit_code == 0
    data = json.loads(project.run("inspect", "--json").stdout)
    assert data["running"] is False
    assert data["last_run"]["exit_code"] == 0
    assert data["last_run"]["reason"] == "every spec verified (3/3)"
    text = project.run("inspect").stdout
    assert "last run: ended" in text and "(exit 0): every spec verified" in text


@posix_signals
@pytest.mark.slow
def test_inspect_a_live_run(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    agent = project.script({"*": [{"sleep": 60, "signal": "DONE"}]})
    with live_run(project, agent, "--agent", "scripted") as proc:
        data = json.loads(project.run("inspect", "--json").stdout)
        assert data["running"] is True
        assert data["pid"] == proc.pid
        assert data["agent"] == "scripted"
        assert data["agent_pid"] == agent_pid(project)
        assert data["spec"] == "PROMPT.md"
        assert data["iteration"] == 1
        assert data["mode"] == "IMPLEMENT"
        assert abs(data["started_at"] - time.time()) < 120
        assert data["rotation_running_for"] >= 0
        text = project.run("inspect").stdout
        assert f"run live: pid {proc.pid}" in text
        assert "agent: scripted" in text
        assert "spec: PROMPT.md" in text
        assert "rotation 1 [IMPLEMENT], since" in text
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)


@pytest.mark.slow
def test_inspect_follow_streams_every_rotation_until_the_run_ends(
    project: Project, tmp_path: Path
) -> None:
    """Waits on events, not on the clock: the agent's first rotation holds until the follower
    has shown its last tick (so the follower is attached whatever the machine's speed)."""
    project.write({"PROMPT.md": "# goal\n"})
    gate = tmp_path / "gate"
    ticker = f"{sys.executable} {FAKES / 'ticker.py'} 15 0.01 {gate}"
    with live_run(project, ticker, "-n", "2") as proc:
        command = [sys.executable, "-m", "ralph", "inspect", "--follow"]
        with subprocess.Popen(command, cwd=project.root, stdout=subprocess.PIPE, text=True) as fol:
            lines = lines_of(fol)
            seen: list[str] = []
            while "tick 14" not in seen:  # rotation 1's last tick: the follower is attached
                line = lines.get(timeout=120)
                assert line is not None, seen  # the follower ended before the run did
                seen.append(line.rstrip("\n"))
            gate.touch()
            out, _ = proc.communicate(timeout=120)
            assert proc.returncode == 3, out  # two rotations, no signal: max iterations
            while (line := lines.get(timeout=120)) is not None:
                seen.append(line.rstrip("\n"))
            assert fol.wait(timeout=120) == 0
    assert seen[-1] == "-- the run has ended"
    headers = [line for line in seen if line.startswith("# ralph rotation")]
    assert [h.split()[3] for h in headers] == ["1", "2"]  # it went on to the second rotation
    last = [line for line in seen[seen.index(headers[-1]) :] if line.startswith("tick")]
    # every tick, each stream in its order (how two pipes interleave is the scheduler's choice)
    assert sorted(last, key=lambda t: int(t.split()[1])) == [f"tick {i}" for i in range(15)]
    assert [t for t in last if int(t.split()[1]) % 2 == 0] == [f"tick {i}" for i in range(0, 15, 2)]
    assert [t for t in last if int(t.split()[1]) % 2] == [f"tick {i}" for i in range(1, 15, 2)]
    assert any(line.startswith("# ended: signal=NONE") for line in seen[seen.index(headers[-1]) :])


def lines_of(proc: subprocess.Popen[str]) -> queue.Queue[str | None]:
    """The process's output lines as they come (None once it is closed), so that a test waits
    for a line with a bound instead of blocking on it."""
    lines: queue.Queue[str | None] = queue.Queue()

    def pump() -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            lines.put(line)
        lines.put(None)

    threading.Thread(target=pump, daemon=True).start()
    return lines


def three_rotations(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n", "specs/b.spec.md": "# b\n"})
    agent = project.script(
        {
            "PROMPT.md": [{"say": "first line\nlast words", "signal": "DONE"}],
            "specs/b.spec.md": [{"write": {"b.txt": "1"}, "say": "b work", "signal": "CONTINUE"}],
        }
    )
    res = project.run("run", "--agent-command", agent, "--agent", "scripted", "-n", "3")
    assert res.exit_code == 3, res


def test_history_lists_every_rotation(project: Project) -> None:
    three_rotations(project)
    res = project.run("history")
    assert res.exit_code == 0, res
    lines = res.stdout.splitlines()
    assert lines[0].split() == [
        "#",
        "started",
        "spec",
        "agent",
        "mode",
        "signal",
        "files",
        "duration",
        "checks",
        "cost",
    ]
    rows = [line.split() for line in lines[1:]]
    assert [r[0] for r in rows] == ["1", "2", "3"]
    assert rows[0][3:8] == ["PROMPT.md", "scripted", "IMPLEMENT", "DONE", "0"]
    assert rows[1][3:8] == ["specs/b.spec.md", "scripted", "IMPLEMENT", "CONTINUE", "1"]
    assert rows[0][-1] == "-"  # no cost reported by this agent


def test_history_json_and_spec_filter(project: Project) -> None:
    three_rotations(project)
    res = project.run("history", "--json", "--spec", "./specs/b.spec.md")
    data = json.loads(res.stdout)["rotations"]
    assert [r["number"] for r in data] == [2, 3]
    assert {r["spec"] for r in data} == {"specs/b.spec.md"}
    assert data[0]["files_changed"] == 1 and data[0]["duration"] >= 0
    assert data[0]["log"].startswith(".ralph/history/")
    none = project.run("history", "--spec", "specs/nope.spec.md")
    assert none.exit_code == 0 and "no rotations of specs/nope.spec.md" in none.stdout


def test_history_shows_one_rotations_log_and_its_tail(project: Project) -> None:
    three_rotations(project)
    res = project.run("history", "1")
    assert res.exit_code == 0, res
    assert res.stdout.startswith("# ralph rotation 1 [IMPLEMENT] PROMPT.md")
    assert "first line\nlast words\n" in res.stdout
    tail = project.run("history", "1", "--tail", "2")
    assert tail.stdout.splitlines()[-1].startswith("# ended: signal=DONE")
    assert len(tail.stdout.splitlines()) == 2


@pytest.mark.slow
@pytest.mark.parametrize(
    ("env", "args", "paged"),
    [({}, (), True), ({"CI": "true"}, (), False), ({}, ("--no-pager",), False)],
    ids=["terminal", "CI", "--no-pager"],
)
def test_history_pages_long_output_on_a_terminal_only(
    project: Project, tmp_path: Path, env: dict[str, str], args: tuple[str, ...], paged: bool
) -> None:
    three_rotations(project)
    paged_to = tmp_path / "paged.txt"
    pager = tmp_path / "pager.py"
    pager.write_text(f"import sys\nopen({str(paged_to)!r}, 'w').write(sys.stdin.read())\n")
    env = {**env, "PAGER": f"{sys.executable} {pager}", "LINES": "3", "COLUMNS": "200"}
    code, out = run_in_terminal(project, "history", *args, env=env, stdin_tty=True)
    assert code == 0, out
    if paged:
        assert "specs/b.spec.md" in paged_to.read_text()
        assert "specs/b.spec.md" not in out
    else:
        assert not paged_to.exists()
        assert "specs/b.spec.md" in out


def test_history_unknown_rotation_is_an_error(project: Project) -> None:
    three_rotations(project)
    res = project.run("history", "99")
    assert res.exit_code == 1, res
    assert "no log for rotation 99" in res.stderr


def test_history_tail_needs_a_rotation(project: Project) -> None:
    three_rotations(project)
    assert project.run("history", "--tail", "3").exit_code == 2


@posix_signals
@pytest.mark.slow
def test_status_watch_refreshes_until_ctrl_c(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    proc = subprocess.Popen(
        [sys.executable, "-m", "ralph", "status", "--watch", "--interval", "0.2"],
        cwd=project.root,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None
        seen: list[str] = []
        deadline = time.monotonic() + 30
        while sum(x.startswith("-- ") for x in seen) < 2 and time.monotonic() < deadline:
            seen.append(proc.stdout.readline())
        assert sum(x.startswith("-- ") for x in seen) == 2, seen
        assert any(x.startswith("PROMPT.md  0/3") for x in seen), seen
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 0, err
    assert "Traceback" not in err


@posix_signals
@pytest.mark.slow
def test_status_watch_on_a_terminal_redraws_the_table(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    proc = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import pty, sys; sys.exit(pty.spawn(sys.argv[1:]) >> 8)",
            sys.executable,
            "-m",
            "ralph",
            "status",
            "--watch",
            "--interval",
            "0.2",
        ],
        cwd=project.root,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        assert proc.stdout is not None
        # Read until the table was drawn twice: it keeps running and redrawing (not the timing).
        first = b""
        deadline = time.monotonic() + 30
        while first.count(b"Counter") < 2 and time.monotonic() < deadline:
            chunk = os.read(proc.stdout.fileno(), 65536)
            if not chunk:
                break
            first += chunk
        assert first.count(b"Counter") >= 2, first
        assert proc.poll() is None
        for child in psutil.Process(proc.pid).children(recursive=True):
            child.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    text = (first + out).decode("utf-8", "replace")
    assert "PROMPT.md" in text and "Counter" in text  # the Rich table, not the plain one
    assert "Traceback" not in text + err.decode()


@pytest.mark.slow
@pytest.mark.parametrize("how", ["--no-color", "NO_COLOR", None])
def test_status_on_a_terminal_honours_no_color(project: Project, how: str | None) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    assert project.run("run", *project.fake({"*": DONE})).exit_code == 0
    args = ["status", "--no-color"] if how == "--no-color" else ["status"]
    env = {"NO_COLOR": "1"} if how == "NO_COLOR" else {}
    code, out = run_in_terminal(project, *args, env=env)
    assert code == 0, out
    colours = re.findall(r"\x1b\[(?:[0-9;]*;)?(3[0-7]|9[0-7])m", out)
    assert "PROMPT.md" in out
    assert bool(colours) is (how is None), (how, out)  # the control: colours by default


def test_continue_reuses_the_saved_options(project: Project, tmp_path: Path) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    agent = project.fake({"*": [{"signal": "CONTINUE"}]})
    junit = tmp_path / "j.xml"
    first = project.run("run", *agent, "-n", "1", "--junit", str(junit))
    assert first.exit_code == 3, first
    junit.unlink()
    again = project.run("run", "--continue")
    assert again.exit_code == 3, again
    assert len(project.calls()) == 2  # the same agent, one rotation again
    assert junit.exists()  # the same report
    more = project.run("run", "--continue", "-n", "2")  # given again: overrides
    assert more.exit_code == 3, more
    assert len(project.calls()) == 4


def test_continue_replaces_a_saved_agent_command_with_a_given_agent(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    agent = project.fake({"*": [{"signal": "CONTINUE"}]})
    assert project.run("run", *agent, "-n", "1").exit_code == 3
    res = project.run("run", "--continue", "--agent", "demo", "-n", "1")
    assert res.exit_code == 3, res
    assert "(demo)" in res.stdout
    assert len(project.calls()) == 1


def test_continue_with_a_damaged_saved_option_is_one_clear_error(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    agent = project.fake({"*": [{"signal": "CONTINUE"}]})
    assert project.run("run", *agent, "-n", "1").exit_code == 3
    path = project.store / "run-options.json"
    data = json.loads(path.read_text())
    data["options"]["max_iterations"] = "many"
    path.write_text(json.dumps(data))
    res = project.run("run", "--continue")
    assert res.exit_code == 1, res
    assert (
        "run-options.json in ralph's private store): option max_iterations: 'many' is not valid"
        in res.stderr
    )
    assert "Traceback" not in res.stderr
    again = project.run("run", "--continue", "-n", "1")  # the damaged option given again
    assert again.exit_code == 3, again
    assert len(project.calls()) == 2


def test_a_report_of_the_last_run_is_not_a_change_for_a_run_without_it(
    git_project: Project,
) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    agent = git_project.fake({"*": DONE})
    first = git_project.run("run", *agent, "--report-json", "report.json")
    assert first.exit_code == 0, first
    second = git_project.run("run", *agent)
    assert second.exit_code == 0, second
    assert "files changed since the last run" not in second.stdout
    assert len(git_project.calls()) == 3


def test_continue_without_a_saved_run_is_a_usage_error(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", "--continue")
    assert res.exit_code == 2, res
    assert "nothing to continue" in res.stderr


@posix_signals
@pytest.mark.slow
def test_continue_resumes_an_interrupted_run(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    agent = project.script({"*": [{"sleep": 60, "signal": "DONE"}, *DONE]})
    with live_run(project, agent, "--agent", "mine") as proc:
        wait_for(lambda: len(project.calls()) == 1)  # the agent is into its long first step
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=30)
        assert proc.returncode == 130
    res = project.run("run", "--continue")
    assert res.exit_code == 0, res
    assert "(mine)" in res.stdout
    assert project.counts() == {"PROMPT.md": 3}


def test_install_completion_writes_a_script_for_the_shell(project: Project) -> None:
    # the shell named, not detected: a test run whose parent shell is gone (reparented to
    # init) has no shell among its ancestors to find
    project.monkeypatch.setenv("_TYPER_COMPLETE_TEST_DISABLE_SHELL_DETECTION", "1")
    res = project.run_subprocess("--install-completion", "bash")
    assert res.exit_code == 0, res
    home = Path(os.environ["HOME"])
    script = home / ".bash_completions" / "ralph.sh"
    assert "_RALPH_COMPLETE" in script.read_text()
    assert str(script) in (home / ".bashrc").read_text()


def test_completion_completes_commands(project: Project) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from ralph.entry import main; sys.exit(main())"],
        env={
            **os.environ,
            "_RALPH_COMPLETE": "complete_bash",
            "COMP_WORDS": "ralph in",
            "COMP_CWORD": "1",
        },
        capture_output=True,
        text=True,
        check=False,
    )
    assert set(proc.stdout.split()) == {"init", "inspect"}, proc


def fake_notifier(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "bin"
    folder.mkdir()
    record = tmp_path / "notified.txt"
    tool = folder / "notify-send"
    body = f"import sys\nopen({str(record)!r}, 'a').write('|'.join(sys.argv[1:]) + '\\n')\n"
    tool.write_text(f"#!{sys.executable}\n{body}")
    tool.chmod(0o755)
    return folder, record


@posix_shell
def test_notify_uses_the_platform_notifier(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, record = fake_notifier(tmp_path)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", *project.fake({"*": DONE}), "--notify")
    assert res.exit_code == 0, res
    assert record.read_text() == (
        "--app-name=ralph|ralph: every spec verified|1/1 specs verified · 4 rotations\n"
    )


def test_no_notification_unless_asked(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder, record = fake_notifier(tmp_path)
    monkeypatch.setenv("PATH", f"{folder}{os.pathsep}{os.environ['PATH']}")
    project.write({"PROMPT.md": "# goal\n"})
    assert project.run("run", *project.fake({"*": DONE})).exit_code == 0
    assert not record.exists()


@pytest.mark.skipif(WINDOWS, reason="symlinks need privileges on Windows")
def test_notify_is_silent_without_a_notifier(
    project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import shutil

    folder = tmp_path / "only-git"
    folder.mkdir()
    git = shutil.which("git")
    assert git is not None
    (folder / "git").symlink_to(git)
    monkeypatch.setenv("PATH", str(folder))
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", *project.fake({"*": DONE}), "--notify")
    assert res.exit_code == 0, res
    assert res.stderr == ""
