"""process/runner.py against real fake agents: output, limits, and no process left behind.

A start that fails (StartError) is tests/process/test_spawn.py's."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path

import psutil
import pytest

from ralph.process.request import OPEN, ProcessRequest, ProcessResult, StreamName
from ralph.process.runner import run_process

FAKES = Path(__file__).resolve().parents[1] / "fakes"


posix_only = pytest.mark.skipif(sys.platform == "win32", reason="needs fork, setsid, SIGINT")


class Recorder:
    """An on_output that keeps every chunk, in order, per stream."""

    def __init__(self) -> None:
        self.chunks: list[tuple[StreamName, bytes]] = []

    def __call__(self, name: StreamName, chunk: bytes) -> None:
        self.chunks.append((name, chunk))

    def joined(self, name: StreamName) -> bytes:
        return b"".join(chunk for stream, chunk in self.chunks if stream == name)


def fake(name: str, *args: str) -> tuple[str, ...]:
    return (sys.executable, str(FAKES / f"{name}.py"), *args)


def request(argv: tuple[str, ...], cwd: Path, **kwargs: object) -> ProcessRequest:
    env = {**os.environ, "RALPH_FAKE_MARK": "from-ralph"}
    options = {"confined": OPEN, **kwargs}  # unconfined unless a test says otherwise
    return ProcessRequest(argv=argv, cwd=cwd, env=env, **options)  # type: ignore[arg-type]


def read_pid(path: Path, timeout: float = 60.0) -> int:
    end = time.monotonic() + timeout
    while not path.exists():
        assert time.monotonic() < end, f"{path} never appeared"
        time.sleep(0.01)
    return int(path.read_text())


def is_gone(pid: int, timeout: float = 30.0) -> bool:
    """Whether `pid` is dead within `timeout`; a zombie counts (nobody may reap orphans)."""
    end = time.monotonic() + timeout
    while True:
        try:
            if psutil.Process(pid).status() == psutil.STATUS_ZOMBIE:
                return True
        except psutil.NoSuchProcess:
            return True
        if time.monotonic() >= end:
            return False
        time.sleep(0.02)


def assert_not_killed(result: ProcessResult) -> None:
    assert not (result.timed_out or result.idle_timed_out or result.interrupted)


@pytest.mark.slow  # real processes
def test_normal_exit_collects_output_cwd_env_and_exit_code(tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.md"
    prompt.write_bytes(b"do the thing\n")
    out = Recorder()
    result = run_process(request(fake("cat"), tmp_path, stdin_path=prompt), out)

    assert result.exit_code == 0
    assert result.ok
    assert_not_killed(result)
    assert result.stdout_tail == b"do the thing\n"
    assert result.stdout_bytes == len(b"do the thing\n")
    assert f"cwd={tmp_path.resolve()}".encode() in result.stderr_tail
    assert b"mark=from-ralph" in result.stderr_tail
    assert result.stderr_bytes == len(result.stderr_tail)
    assert out.joined("stdout") == result.stdout_tail
    assert out.joined("stderr") == result.stderr_tail
    assert result.started <= result.ended
    assert result.elapsed == pytest.approx(result.ended - result.started, abs=0.5)


@pytest.mark.slow  # real processes
def test_non_zero_exit_is_data_not_an_exception(tmp_path: Path) -> None:
    result = run_process(request(fake("cat", "3"), tmp_path), Recorder())

    assert result.exit_code == 3
    assert not result.ok
    assert_not_killed(result)


@pytest.mark.slow  # real processes
def test_no_stdin_path_gives_empty_stdin(tmp_path: Path) -> None:
    # DEVNULL, not the test's own stdin: cat.py would otherwise wait for input forever.
    result = run_process(request(fake("cat"), tmp_path, timeout=10.0), Recorder())

    assert result.exit_code == 0
    assert result.stdout_bytes == 0


@pytest.mark.slow  # real processes
def test_prompt_larger_than_the_argument_limit_reaches_stdin(tmp_path: Path) -> None:
    prompt = tmp_path / "prompt.md"
    data = os.urandom(5 * 1024 * 1024)
    prompt.write_bytes(data)
    out = Recorder()
    result = run_process(request(fake("cat"), tmp_path, stdin_path=prompt), out)

    assert result.exit_code == 0
    assert result.stdout_bytes == len(data)
    assert out.joined("stdout") == data
    assert result.stdout_tail == data[-(1 << 20) :]


@pytest.mark.slow  # real processes
def test_binary_bytes_and_unterminated_lines_pass_through_intact(tmp_path: Path) -> None:
    out = Recorder()
    result = run_process(request(fake("no_newline"), tmp_path), out)

    expected = b"\x00\xff\xfe binary \x1b[31m\r\n" + bytes(range(256))
    expected += b"a last line with no newline"
    assert result.stdout_tail == expected
    assert out.joined("stdout") == expected
    assert result.stderr_tail == b"err \x00 without newline"
    assert out.joined("stderr") == b"err \x00 without newline"


@pytest.mark.slow  # real processes
def test_wall_timeout_kills_a_program_that_never_ends(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    result = run_process(
        request(fake("silent", str(pid_file)), tmp_path, timeout=0.5, kill_grace=0.5), Recorder()
    )

    assert result.timed_out
    assert not result.idle_timed_out
    assert result.exit_code is None
    assert not result.ok
    # killed, not waited for: the program sleeps 30 s (bounds are generous: a loaded machine)
    assert 0.5 <= result.elapsed < 20.0
    assert is_gone(read_pid(pid_file))


@pytest.mark.slow  # real processes
def test_idle_timeout_kills_a_program_that_goes_silent(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    out = Recorder()
    result = run_process(
        request(
            fake("silent", str(pid_file), "hello"),
            tmp_path,
            timeout=10.0,
            idle_timeout=0.5,
            kill_grace=0.5,
        ),
        out,
    )

    assert result.idle_timed_out
    assert not result.timed_out
    assert result.exit_code is None
    assert result.stdout_tail == b"hello\n"
    assert result.elapsed < 10.0  # before the wall timeout (the program sleeps 30 s)
    assert is_gone(read_pid(pid_file))


@pytest.mark.slow  # real processes
def test_output_on_either_stream_resets_the_idle_timer(tmp_path: Path) -> None:
    # 12 ticks 0.2 s apart, alternating stdout and stderr: 2.4 s in all, longer than the idle
    # timeout, never silent for more than a tenth of it (a loaded machine delays a tick).
    result = run_process(
        request(fake("ticker", "12", "0.2"), tmp_path, idle_timeout=2.0, timeout=60.0),
        Recorder(),
    )

    assert_not_killed(result)
    assert result.exit_code == 0
    assert result.stdout_tail.count(b"tick") == 6
    assert result.stderr_tail.count(b"tick") == 6


@pytest.mark.slow  # real processes
def test_output_on_stderr_alone_resets_the_idle_timer(tmp_path: Path) -> None:
    # stdout says nothing at all: 12 lines on stderr, 0.2 s apart, outlast the 2 s idle timeout
    talker = "import sys, time\nfor _ in range(12):\n    print('.', file=sys.stderr, flush=True)\n"
    talker += "    time.sleep(0.2)\n"
    result = run_process(
        request((sys.executable, "-c", talker), tmp_path, idle_timeout=2.0, timeout=60.0),
        Recorder(),
    )

    assert_not_killed(result)
    assert result.exit_code == 0
    assert result.stdout_bytes == 0 and result.stderr_tail.count(b".") == 12
    assert result.elapsed > 2.0  # longer than the idle timeout, so stderr kept it alive


@pytest.mark.slow  # real processes
@posix_only
def test_program_ignoring_sigterm_is_sigkilled_after_the_grace(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    result = run_process(
        request(fake("ignore_sigterm", str(pid_file)), tmp_path, timeout=0.5, kill_grace=0.5),
        Recorder(),
    )

    assert result.stdout_tail == b"ready\n"  # the SIG_IGN handler was in place in time
    assert result.timed_out
    assert result.exit_code is None
    assert 1.0 <= result.elapsed < 20.0  # timeout + the whole grace, then SIGKILL
    assert is_gone(read_pid(pid_file))


@pytest.mark.slow  # real processes
@posix_only
def test_setsid_grandchild_is_killed_when_the_agent_exits(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    result = run_process(request(fake("forker", str(pid_file), "0.7"), tmp_path), Recorder())

    assert result.exit_code == 0
    assert_not_killed(result)
    grandchild = read_pid(pid_file)
    assert is_gone(grandchild)


@pytest.mark.slow  # real processes
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="child subreaper is Linux-only")
def test_grandchild_of_an_agent_that_exits_at_once_is_still_killed(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    result = run_process(request(fake("quick_forker", str(pid_file)), tmp_path), Recorder())

    assert result.exit_code == 0
    grandchild = read_pid(pid_file)
    assert is_gone(grandchild)
    # reaped too: no zombie of it is left with ralph, its adoptive parent
    assert not psutil.pid_exists(grandchild) or psutil.Process(grandchild).ppid() != os.getpid()


@pytest.mark.slow  # real processes
@posix_only
def test_setsid_grandchild_is_killed_on_timeout(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    result = run_process(
        request(fake("forker", str(pid_file), "30"), tmp_path, timeout=0.7, kill_grace=0.5),
        Recorder(),
    )

    assert result.timed_out
    assert is_gone(read_pid(pid_file))


@pytest.mark.slow  # real processes
@posix_only
def test_background_grandchild_holding_stdout_does_not_hang_and_is_killed(
    tmp_path: Path,
) -> None:
    pid_file = tmp_path / "grandchild.pid"
    result = run_process(
        request(fake("background", str(pid_file)), tmp_path, kill_grace=0.5), Recorder()
    )

    assert result.exit_code == 0
    assert result.stdout_tail == b"parent done\n"
    assert result.elapsed < 20.0  # the grandchild sleeps 30 s with the pipe open
    assert is_gone(read_pid(pid_file))


@pytest.mark.slow  # real processes
@posix_only
def test_quiet_background_grandchild_is_killed_when_the_agent_exits(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild.pid"
    result = run_process(
        request(fake("background", str(pid_file), "--quiet"), tmp_path), Recorder()
    )

    assert result.exit_code == 0
    assert result.elapsed < 20.0  # the grandchild sleeps 30 s
    assert is_gone(read_pid(pid_file))


@pytest.mark.slow
def test_flood_keeps_only_the_tail_and_memory_stays_flat(tmp_path: Path) -> None:
    megabytes = 200
    tail_bytes = 1 << 20
    me = psutil.Process()
    baseline = me.memory_info().rss
    peak = baseline
    seen = 0
    calls = 0

    def on_output(name: StreamName, chunk: bytes) -> None:
        nonlocal peak, seen, calls
        seen += len(chunk)
        calls += 1
        if calls % 64 == 0:
            peak = max(peak, me.memory_info().rss)

    result = run_process(
        request(fake("flood", str(megabytes)), tmp_path, tail_bytes=tail_bytes, timeout=60.0),
        on_output,
    )
    peak = max(peak, me.memory_info().rss)

    block = bytes(range(256)) * 4096
    total = megabytes * len(block) + len(b"THE-END")
    assert result.exit_code == 0
    assert result.stdout_bytes == total
    assert seen == total
    assert calls > 1  # streamed in chunks, not collected and handed over at the end
    assert len(result.stdout_tail) == tail_bytes
    assert result.stdout_tail == (block + b"THE-END")[-tail_bytes:]
    assert peak - baseline < 50 * 1024 * 1024


@pytest.mark.slow  # real processes
def test_tail_bytes_zero_keeps_nothing_but_counts(tmp_path: Path) -> None:
    result = run_process(request(fake("no_newline"), tmp_path, tail_bytes=0), Recorder())

    assert result.stdout_tail == b""
    assert result.stderr_tail == b""
    assert result.stdout_bytes > 0
    assert result.stderr_bytes > 0


@pytest.mark.slow  # real processes
def test_cancel_event_from_another_thread_stops_the_program(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    cancel = threading.Event()
    timer = threading.Timer(0.3, cancel.set)
    timer.start()
    try:
        result = run_process(
            request(fake("silent", str(pid_file)), tmp_path, timeout=20.0, kill_grace=0.5),
            Recorder(),
            cancel,
        )
    finally:
        timer.cancel()

    assert result.interrupted
    assert not result.timed_out
    assert result.exit_code is None
    assert result.elapsed < 15.0  # before the 20 s timeout
    assert is_gone(read_pid(pid_file))


@pytest.mark.slow  # real processes
def test_output_is_delivered_while_the_program_runs(tmp_path: Path) -> None:
    # Cancelling from inside on_output only works if chunks arrive before the program ends.
    pid_file = tmp_path / "pid"
    cancel = threading.Event()

    def on_output(name: StreamName, chunk: bytes) -> None:
        if b"ready" in chunk:
            cancel.set()

    result = run_process(
        request(fake("silent", str(pid_file), "ready"), tmp_path, timeout=20.0, kill_grace=0.5),
        on_output,
        cancel,
    )

    assert result.interrupted
    assert result.elapsed < 15.0  # before the 20 s timeout


@pytest.mark.slow  # real processes
def test_error_in_on_output_propagates_and_kills_the_program(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"

    def on_output(name: StreamName, chunk: bytes) -> None:
        raise RuntimeError("caller bug")

    with pytest.raises(RuntimeError, match="caller bug"):
        run_process(
            request(fake("silent", str(pid_file), "x"), tmp_path, timeout=20.0, kill_grace=0.5),
            on_output,
        )
    assert is_gone(read_pid(pid_file))


@pytest.mark.slow  # real processes
@posix_only
def test_ctrl_c_returns_an_interrupted_result_and_kills_the_program(tmp_path: Path) -> None:
    pid_file = tmp_path / "pid"
    helper = subprocess.Popen(
        [sys.executable, str(FAKES / "interrupt_helper.py"), str(pid_file)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        child = read_pid(pid_file, timeout=10.0)
        helper.send_signal(signal.SIGINT)
        stdout, stderr = helper.communicate(timeout=10.0)
    finally:
        if helper.poll() is None:
            helper.kill()
            helper.communicate()

    # No traceback: KeyboardInterrupt became a result, not an exception.
    assert helper.returncode == 0, stderr.decode()
    fields = json.loads(stdout)
    assert fields["interrupted"] is True
    assert fields["exit_code"] is None
    assert fields["timed_out"] is False
    assert is_gone(child)


@pytest.mark.slow  # real processes
@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="child subreaper is Linux-only")
def test_orphans_that_end_on_their_own_are_reaped(tmp_path: Path) -> None:
    # In a process of its own: a pytest worker that earlier tests made a subreaper collects
    # other tests' orphans too, and one of those dying meanwhile is not this rule's doing.
    program = f"""
import os, psutil
from pathlib import Path
from ralph.process.request import OPEN, ProcessRequest
from ralph.process.runner import run_process

def zombies():
    return {{c.pid for c in psutil.Process().children() if c.status() == psutil.STATUS_ZOMBIE}}

before = zombies()
script = "(sleep 0.1 &); sleep 0.6; echo done"  # the orphan ends while the agent runs
for _ in range(3):
    request = ProcessRequest(argv=("/bin/sh", "-c", script), cwd=Path({str(tmp_path)!r}),
                             env=dict(os.environ), confined=OPEN)
    assert run_process(request, lambda stream, chunk: None).exit_code == 0
print(sorted(zombies() - before))
"""
    out = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=60, check=True
    )
    assert json.loads(out.stdout) == []


@pytest.mark.slow  # real processes
def test_elapsed_is_measured_on_the_monotonic_clock(tmp_path: Path) -> None:
    # A wall clock stepped during the run (NTP, a resumed VM) must not change how long the
    # agent took: started/ended are for logs, the duration is what timeouts and reports use.
    result = run_process(request(fake("ticker", "1", "0"), tmp_path), Recorder())
    stepped = replace(result, ended=result.started + 3600.0)

    assert result.duration is not None
    assert 0.0 < result.duration < 60.0
    assert stepped.elapsed == result.duration
    assert replace(result, duration=None, ended=result.started - 5).elapsed == 0.0
