"""checks/command.py: an external check's command."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path

import pytest

from ralph.checks.command import run_command
from ralph.checks.result import CheckResult
from ralph.process.allowlist import AllowList
from ralph.process.launcher import PLAIN, Launcher
from ralph.process.request import Confinement
from ralph.specs.checkconfig import ExternalConfig
from tests.fakes.commands import Commands


@pytest.mark.slow  # real commands
def test_external_exit_code_and_output_rules(tmp_path: Path) -> None:
    def run(**kw: object) -> tuple[bool, str]:
        res = run_command(ExternalConfig.model_validate(kw), tmp_path, launcher=PLAIN)
        return res.passed, res.summary

    assert run(command="echo all passed") == (True, "exit code 0")
    assert run(command="echo boom; exit 3") == (False, "exit code 3, expected 0")
    assert run(command="exit 3", success_exit_code=3)[0]
    assert run(command="echo 5 passed", output_contains="passed")[0]
    assert run(command="echo 1 failed", output_contains="passed") == (
        False,
        "output does not contain 'passed'",
    )
    assert run(command="echo FAILED >&2", output_not_contains="FAILED") == (
        False,
        "output contains 'FAILED'",
    )
    assert run(command="echo ok", output_not_contains="FAILED")[0]


@pytest.mark.slow  # real commands
def test_external_runs_in_its_working_dir_and_keeps_the_output_tail(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "marker").write_text("x")
    ok = run_command(
        ExternalConfig(command="test -f marker", working_dir="sub"), tmp_path, launcher=PLAIN
    )
    assert ok.passed
    loud = "; ".join(f"echo line{i}" for i in range(40)) + "; exit 1"
    bad = run_command(ExternalConfig(command=loud), tmp_path, launcher=PLAIN)
    assert not bad.passed
    assert bad.output.splitlines() == [f"line{i}" for i in range(20, 40)]


@pytest.mark.slow  # real commands
def test_external_that_cannot_start_is_a_failed_check(tmp_path: Path) -> None:
    missing_dir = run_command(
        ExternalConfig(command="true", working_dir="nope"), tmp_path, launcher=PLAIN
    )
    assert not missing_dir.passed
    assert missing_dir.summary == "cannot start: working directory nope does not exist"
    missing_cmd = run_command(
        ExternalConfig(command="no-such-command-xyz"), tmp_path, launcher=PLAIN
    )
    assert not missing_cmd.passed
    assert "exit code 127" in missing_cmd.summary
    assert "not found" in missing_cmd.output


@pytest.mark.slow  # real commands
def test_external_timeout_kills_the_whole_tree(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    cmd = f"sleep 60 & echo $! > {pidfile}; wait"
    started = time.monotonic()
    res = run_command(ExternalConfig(command=cmd, timeout=0.5), tmp_path, launcher=PLAIN)
    assert time.monotonic() - started < 30
    assert not res.passed and res.summary.startswith("timed out after 0.5 s")
    import psutil

    pid = int(pidfile.read_text())
    deadline = time.monotonic() + 10
    while psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE:
        assert time.monotonic() < deadline, "the check's child survived its timeout"
        time.sleep(0.05)


@pytest.mark.slow  # real commands
def test_external_cancelled_is_interrupted_not_failed(tmp_path: Path) -> None:
    cancel = threading.Event()
    threading.Timer(0.3, cancel.set).start()
    res = run_command(ExternalConfig(command="sleep 30"), tmp_path, cancel=cancel, launcher=PLAIN)
    assert res.interrupted and not res.passed


def test_a_check_s_command_starts_by_its_launcher_in_the_launcher_s_confinement(
    tmp_path: Path,
) -> None:
    fake = Commands({"make check": (0, "ok\n")})
    confined = Confinement(allow=AllowList(frozenset({"MINE"})))
    res = run_command(
        ExternalConfig(command="make check"), tmp_path, launcher=Launcher(confined, fake)
    )
    assert res.passed and fake.lines() == ["make check"]  # the fake ran it, no process started
    assert fake.ran[0].confined is confined  # said on its request: the sandbox starts it


def test_in_a_room_pytest_s_own_record_decides_never_a_printed_summary(tmp_path: Path) -> None:
    """A room's run: the records of the run before are cleared, and the run's own say what
    ran. A session that never ended refuses whatever the output says; an ended one's counts
    stand for pytest's summary line (the code can print one), a unittest summary adds up."""
    from ralph.checks import runrecord

    runrecord.place(tmp_path)
    folder = runrecord.folder(tmp_path)
    (folder / "session-1.json").write_text('{"stage": "ended"}')  # an earlier run's: cleared

    def record(stage: str, passed: int) -> dict[str, object]:
        counts = {"passed": passed, "failed": 0, "skipped": 0}
        return {"stage": stage, "collected": 2, "ran": passed, "errors": 0, **counts}

    def plays(stage: str, passed: int, out: str) -> Commands:
        def play(request: object) -> tuple[int, str]:
            (folder / "session-9.json").write_text(json.dumps(record(stage, passed)))
            return 0, out

        return Commands({"pytest": play})

    def run(fake: Commands) -> CheckResult:
        cfg = ExternalConfig(command="pytest")
        return run_command(cfg, tmp_path, room=tmp_path, launcher=fake.launcher)

    forged = run(plays("collected", 0, "9 passed in 0.01s\n"))
    assert not forged.passed and "pytest stopped before its end" in forged.summary
    honest = run(plays("ended", 2, "9 passed in 0.01s\nRan 1 test in 0.0s\n\nOK\n"))
    assert honest.passed and honest.counts is not None
    assert (honest.counts.passed, honest.counts.runners) == (3, ("pytest", "unittest"))
    runrecord.clear(tmp_path)
    plain = run(Commands({"pytest": (0, "9 passed in 0.01s\n")}))  # no record: no pytest here
    assert plain.passed and plain.counts is not None and plain.counts.passed == 9
