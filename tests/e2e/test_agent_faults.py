"""Faults through the adapter path: a fake CLI, first on PATH under the real CLI's name, run by
the built-in adapter exactly as the real one would be (resolved path, argv, stdin, env)."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import psutil
import pytest

from ralph.agents.command import CommandAgent
from ralph.agents.registry import make_agent
from ralph.agents.request import AgentRequest
from ralph.agents.result import AgentResult
from ralph.process.request import OPEN, StreamName
from tests.agent_helpers import FAKES, fake_cli, fixture
from tests.conftest import Project
from tests.platforms import wrapper
from tests.process.test_runner import is_gone, read_pid

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="needs fork, setsid, sh")
pytestmark = posix_only


def request(root: Path, prompt: str = "the prompt", **limits: float) -> AgentRequest:
    prompt_file = root / "prompt.md"
    prompt_file.write_text(prompt)
    return AgentRequest(
        prompt=prompt,
        prompt_file=prompt_file,
        root=root,
        spec="PROMPT.md",
        mode="IMPLEMENT",
        iteration=1,
        state_dir=root / ".ralph",
        handoff_file=root / "h.md",
        kill_grace=limits.pop("kill_grace", 0.5),
        timeout=limits.pop("timeout", None),
        idle_timeout=limits.pop("idle_timeout", None),
        confined=OPEN,
    )


def run(agent: CommandAgent, req: AgentRequest) -> tuple[AgentResult, list[str], bytes]:
    shown: list[str] = []
    raw: list[bytes] = []

    def on_lines(stream: StreamName, lines: tuple[str, ...]) -> None:
        shown.extend(lines)

    def on_chunk(stream: StreamName, chunk: bytes) -> None:
        raw.append(chunk)

    return agent.run(req, on_lines, on_chunk), shown, b"".join(raw)


def fake_script(bin_dir: Path, name: str, fake: str, *args: str) -> None:
    wrapper(bin_dir, name, [sys.executable, str(FAKES / fake), *args])


@pytest.fixture
def work(tmp_path: Path) -> Path:
    root = tmp_path / "work"
    root.mkdir()
    return root


# --- faults from recorded output --------------------------------------------------------


def test_rate_limit_through_the_adapter(
    tmp_path: Path, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = fake_cli(
        tmp_path / "bin",
        "claude",
        monkeypatch,
        stdout=fixture("claude-subscription-limit.stdout"),
        exit_code=1,
    )
    result, shown, raw = run(make_agent("claude", None, {}), request(work))
    assert result.fault is not None
    assert (result.fault.kind, result.fault.resets_at) == ("rate_limit", 1893456000.0)
    assert raw == fixture("claude-subscription-limit.stdout")  # the raw stream, untouched
    assert "[rate limit] rejected (five_hour)" in shown
    call = json.loads(record.read_text())
    assert call["stdin"] == "the prompt"
    assert call["cwd"] == str(work)
    assert call["env"]["PWD"] == str(work)


def test_auth_error_through_the_adapter(
    tmp_path: Path, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_cli(
        tmp_path / "bin", "claude", monkeypatch, stderr=fixture("claude-root.stderr"), exit_code=1
    )
    result, shown, _ = run(make_agent("claude", None, {}), request(work))
    assert result.fault is not None and result.fault.kind == "auth"
    assert any("root/sudo" in line for line in shown)


def test_overflow_through_the_adapter(
    tmp_path: Path, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_cli(
        tmp_path / "bin",
        "claude",
        monkeypatch,
        stdout=fixture("claude-prompt-too-long.stdout"),
        exit_code=1,
    )
    result, _, _ = run(make_agent("claude", None, {}), request(work))
    assert result.fault is not None and result.fault.kind == "overflow"


def test_crash_through_the_adapter(
    tmp_path: Path, work: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_cli(tmp_path / "bin", "claude", monkeypatch, stderr=b"Killed\n", exit_code=137)
    result, _, _ = run(make_agent("claude", None, {}), request(work))
    assert result.fault is None
    assert result.failure == "exit code 137: Killed"


# --- hostile programs: nothing of them survives -------------------------------------------


def test_an_agent_ignoring_sigterm_is_killed(tmp_path: Path, work: Path) -> None:
    pid_file = tmp_path / "pid"
    fake_script(tmp_path / "bin", "claude", "ignore_sigterm.py", str(pid_file))
    agent = make_agent("claude", None, {"PATH": str(tmp_path / "bin")})
    result, shown, _ = run(agent, request(work, timeout=6.0))  # room for its start
    assert result.process.timed_out
    assert result.failure is not None and result.failure.startswith("timed out")
    assert shown == ["ready"]  # plain text from a JSON agent is shown as it is
    assert is_gone(read_pid(pid_file))


def test_a_grandchild_of_the_agent_is_killed(tmp_path: Path, work: Path) -> None:
    pid_file = tmp_path / "pid"
    fake_script(tmp_path / "bin", "claude", "forker.py", str(pid_file), "0.5")
    agent = make_agent("claude", None, {"PATH": str(tmp_path / "bin")})
    result, _, _ = run(agent, request(work, timeout=20.0))
    assert result.process.exit_code == 0
    assert result.failure is not None  # exit 0 but no result event
    assert is_gone(read_pid(pid_file))


def test_a_silent_agent_hits_the_idle_timeout(tmp_path: Path, work: Path) -> None:
    pid_file = tmp_path / "pid"
    fake_script(tmp_path / "bin", "claude", "silent.py", str(pid_file))
    agent = make_agent("claude", None, {"PATH": str(tmp_path / "bin")})
    started = time.monotonic()
    result, _, _ = run(agent, request(work, idle_timeout=3.0, timeout=25.0))
    assert result.process.idle_timed_out
    assert time.monotonic() - started < 15
    assert is_gone(read_pid(pid_file))


@pytest.mark.slow
def test_a_flood_keeps_memory_flat_through_a_json_adapter(tmp_path: Path, work: Path) -> None:
    # 100 MiB of every byte value (a newline every 256 bytes) and no JSON at all
    fake_script(tmp_path / "bin", "claude", "flood.py", "100")
    agent = make_agent("claude", None, {"PATH": str(tmp_path / "bin")})
    me = psutil.Process()
    baseline = me.memory_info().rss
    peak = baseline
    lines = 0

    def on_lines(stream: StreamName, shown: tuple[str, ...]) -> None:
        nonlocal peak, lines
        lines += len(shown)
        if lines % 4096 < len(shown):
            peak = max(peak, me.memory_info().rss)

    result = agent.run(request(work, timeout=120.0), on_lines)
    assert result.process.stdout_bytes == 100 * (1 << 20) + len(b"THE-END")
    assert lines > 100_000
    assert result.failure == "Claude Code ended without a result event"
    assert peak - baseline < 80 * 1024 * 1024


def test_an_endless_line_is_cut_in_bounded_memory(tmp_path: Path, work: Path) -> None:
    # 30 MiB without a newline, then a real result: the line is cut at the event limit and
    # the result after it still counts
    endless = tmp_path / "endless.py"
    endless.write_text(
        "import sys\n"
        "sys.stdout.write('{\"type\":\"assistant\",' + 'x' * (30 << 20) + '\\n')\n"
        'sys.stdout.write(\'{"type":"result","subtype":"success","is_error":false,\'\n'
        '                 \'"result":"fine <ralph>DONE</ralph>"}\\n\')\n'
    )
    wrapper(tmp_path / "bin", "claude", [sys.executable, str(endless)])
    agent = make_agent("claude", None, {"PATH": str(tmp_path / "bin")})
    result, shown, _ = run(agent, request(work, timeout=60.0))
    assert result.final_text == "fine <ralph>DONE</ralph>"
    assert result.failure is None
    assert any(line.endswith(" …") for line in shown)


def test_an_agent_printing_the_prompt_back_has_not_signalled(tmp_path: Path, work: Path) -> None:
    # a JSON agent's signal is in its final text only: echoing the prompt (which states the
    # protocol, tags included) on stdout is not DONE
    fake_script(tmp_path / "bin", "claude", "cat.py", "0")
    agent = make_agent("claude", None, {"PATH": str(tmp_path / "bin")})
    prompt = "Say <ralph>DONE</ralph> when done.\n<ralph>DONE</ralph>\n"
    result, _, _ = run(agent, request(work, prompt, timeout=20.0))
    assert result.final_text == ""
    assert result.failure is not None  # no result event: a failed rotation, not a DONE


# --- the whole run: raw stream in history, readable lines in current.log -------------------


def test_ralph_run_keeps_raw_json_in_history_and_readable_lines_in_current_log(
    git_project: Project, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    git_project.write({"PROMPT.md": "# goal\n"})
    record = fake_cli(
        tmp_path / "bin", "claude", monkeypatch, stdout=fixture("claude-write-done.stdout")
    )
    result = git_project.run("run", "--agent", "claude", "--model", "opus", "-n", "1")
    assert result.exit_code == 3, result  # one rotation allowed, spec at 1/3
    assert git_project.counts() == {"PROMPT.md": 1}
    (history,) = (git_project.root / ".ralph/history").glob("*/001.log")
    assert fixture("claude-write-done.stdout") in history.read_bytes()
    current = (git_project.root / ".ralph/current.log").read_text()
    assert "[Write] /root/.cache/ralph-e2e/scratch/hello.txt" in current
    assert "Created hello.txt. <ralph>DONE</ralph>" in current
    assert '"type":"assistant"' not in current
    call = json.loads(record.read_text())
    assert call["argv"][-2:] == ["--model", "opus"]
    assert call["stdin"].startswith("# ralph")  # the whole prompt, on stdin
