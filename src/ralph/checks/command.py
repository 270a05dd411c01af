"""An external check's command: run through the platform's shell by `run_process` (own
timeout, working dir, its whole process tree killed), judged by exit code and output."""

from __future__ import annotations

import os
import shutil
import sys
import threading
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ralph.checks import runrecord
from ralph.checks.evidence import failed_tests, no_tests, run_counts
from ralph.checks.failure import failure
from ralph.checks.result import CheckResult
from ralph.process.launcher import Launcher
from ralph.process.request import ProcessRequest
from ralph.process.spawn import StartError
from ralph.rules.evidence.runrecord import RunRecord
from ralph.rules.evidence.testcounts import TestCounts
from ralph.rules.text.printable import clean_text
from ralph.rules.text.redact import redactor, secret_values
from ralph.rules.text.streamredact import StreamRedactor
from ralph.specs.checkconfig import ExternalConfig

OUTPUT_TAIL_BYTES = 4 << 20  # how much of a check's output is searched for output_contains
KILL_GRACE = 5.0


def shell_argv(command: str) -> tuple[str, ...]:
    """The command line run by the platform's shell (argv[0] absolute, as run_process wants)."""
    if sys.platform == "win32":
        return (
            os.environ.get("COMSPEC", r"C:\Windows\System32\cmd.exe"),
            "/d",
            "/s",
            "/c",
            command,
        )
    sh = "/bin/sh" if Path("/bin/sh").exists() else (shutil.which("sh") or "/bin/sh")
    return (sh, "-c", command)


ROOM_PASSES = frozenset(("PYTHONDONTWRITEBYTECODE", "PYTHONNOUSERSITE", "PYTEST_ADDOPTS"))


def run_command(
    cfg: ExternalConfig,
    root: Path,
    env: Mapping[str, str] | None = None,
    cancel: threading.Event | None = None,
    *,
    name: str = "external",
    required: bool = True,
    room: Path | None = None,
    passes: frozenset[str] = frozenset(),
    whole: bool = False,
    launcher: Launcher,
) -> CheckResult:
    """Run one external check. Never raises for the command's sake: a command that cannot
    start, times out or fails is a failed check, with the reason in its summary. `passes`:
    variables of `env` a sandbox must let through (ralph's own, such as the revert check's
    `PYTEST_ADDOPTS`). `whole`: the result's output is all of it (its last 4 MiB), passed or
    not, for a caller that reads it (the per-case lines of checks/caseruns.py). `launcher`:
    where the shell starts and what runs it (the run's sandbox; a test's in-process fake)."""
    started, wall_started = time.perf_counter(), time.time()
    record: RunRecord | None = None  # pytest's own record of the run (checks/runrecord.py)

    def fail(summary: str, streams: tuple[str, str] = ("", ""), **more: Any) -> CheckResult:
        said = failure(*streams, root, room)  # the end of each stream, its first error line
        return CheckResult(
            *(name, "external", False, required, summary),
            "".join(streams) if whole else said.tail,
            seconds=time.perf_counter() - started,
            record=record,
            error=said.error,
            not_installed=said.not_installed,
            **more,
        )

    cwd = (root / cfg.working_dir).resolve()
    if not cwd.is_dir():
        return fail(f"cannot start: working directory {cfg.working_dir} does not exist")
    env = dict(env if env is not None else os.environ)
    if room is not None:
        runrecord.clear(room)
    try:
        res = launcher.execute(
            ProcessRequest(
                argv=shell_argv(cfg.command),
                cwd=cwd,
                env=env,
                timeout=float(cfg.timeout),
                kill_grace=KILL_GRACE,
                tail_bytes=OUTPUT_TAIL_BYTES,
                room=room,  # a sandbox hides ralph's store, but for the room it runs in
                # a check in a room writes that room only, whichever check it is: the sealed
                # run (checks/sealed.py) must look like the others, sandbox and all
                sealed=room is not None,
                # a room's interpreter settings (checks/place.py) reach it under a sandbox
                passes=passes | ROOM_PASSES if room is not None else passes,
                confined=launcher.confined,  # the run's sandbox: every check runs in it
            ),
            lambda stream, chunk: None,
            cancel,
        )
    except StartError as exc:
        return fail(f"cannot start: {exc}")
    # Where a check's output enters ralph: the secrets of its environment never go further
    # (summaries, history logs, handoff notes, the state's last failure).
    redact = StreamRedactor(redactor(secret_values(env)))
    # Colours (`--color=yes`) and escape sequences are noise in a prompt, a handoff or a log.
    streams = (
        clean_text(redact.tail(res.stdout_tail, res.stdout_bytes).decode(errors="replace")),
        clean_text(redact.tail(res.stderr_tail, res.stderr_bytes).decode(errors="replace")),
    )
    output = "".join(streams)
    if res.interrupted:
        return fail("interrupted", streams, interrupted=True)
    record = runrecord.read(room) if room is not None else None
    if res.timed_out:
        return fail(
            f"timed out after {float(cfg.timeout):g} s (its process tree was killed)", streams
        )
    if record is not None and record.refusal is not None:
        return fail(record.refusal, streams)  # never decided by a line the code could print
    report = cwd / cfg.report if cfg.report is not None else None
    counts = run_counts(output, report, wall_started, record)
    if res.exit_code != cfg.success_exit_code:
        # its counts go with it: the bar measured at the start reads a failing run's too
        read = counts if isinstance(counts, TestCounts) else None
        code = f"exit code {res.exit_code}, expected {cfg.success_exit_code}"
        return fail(code, streams, counts=read)
    if cfg.output_contains is not None and cfg.output_contains not in output:
        return fail(f"output does not contain {cfg.output_contains!r}", streams)
    if cfg.output_not_contains is not None and cfg.output_not_contains in output:
        return fail(f"output contains {cfg.output_not_contains!r}", streams)
    if isinstance(counts, str):
        return fail(counts, streams)
    why: str | None = None
    if counts is not None:
        # a check that expects a non-zero exit code is judged by its exit code alone
        failed = failed_tests(counts, res.exit_code) if cfg.success_exit_code == 0 else None
        why = failed or no_tests(counts)
    if why is not None:
        return fail(why, streams, counts=counts)
    return CheckResult(
        name,
        "external",
        True,
        required,
        f"exit code {res.exit_code}" + (f"; {counts.describe()}" if counts else ""),
        output if whole else "",
        seconds=time.perf_counter() - started,
        counts=counts,
        record=record,
    )
