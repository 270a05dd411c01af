"""Helpers for the adapter tests: recorded CLI output fed through a parser the way a run feeds
it, and fake CLI executables put first on PATH."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ralph.agents.command import CommandAgent
from ralph.agents.output import LineSplitter
from ralph.agents.registry import make_agent
from ralph.agents.request import AgentRequest
from ralph.agents.result import AgentResult, limits_of
from ralph.process.request import OPEN, ProcessResult, StreamName
from tests.platforms import wrapper

FIXTURES = Path(__file__).parent / "fixtures" / "agents"
FAKES = Path(__file__).parent / "fakes"


def fixture(name: str) -> bytes:
    path = FIXTURES / name
    return path.read_bytes() if path.exists() else b""


def replay(
    agent: CommandAgent,
    stdout: bytes,
    stderr: bytes = b"",
    exit_code: int | None = 0,
    chunk: int = 1000,
    **process: bool,
) -> tuple[AgentResult, list[str]]:
    """Feed output to the agent's parser in chunks, as run() does; the result and the lines
    shown to the user."""
    parser = agent.parser()
    shown: list[str] = []

    def on_lines(stream: StreamName, lines: tuple[str, ...]) -> None:
        shown.extend(parser.feed(stream, lines))

    splitter = LineSplitter(on_lines, agent.max_event)
    for i in range(0, max(len(stdout), len(stderr)), chunk):
        if stdout[i : i + chunk]:
            splitter.feed("stdout", stdout[i : i + chunk])
        if stderr[i : i + chunk]:
            splitter.feed("stderr", stderr[i : i + chunk])
    splitter.close()
    result = ProcessResult(
        exit_code=exit_code,
        stdout_tail=stdout[-(1 << 20) :],
        stderr_tail=stderr[-(1 << 20) :],
        stdout_bytes=len(stdout),
        stderr_bytes=len(stderr),
        started=0.0,
        ended=1.0,
        timed_out=process.get("timed_out", False),
        idle_timed_out=process.get("idle_timed_out", False),
        interrupted=process.get("interrupted", False),
    )
    outcome = parser.finish(result)
    return (
        AgentResult(
            result,
            outcome.final_text,
            outcome.usage,
            outcome.fault,
            outcome.error,
            limits_of(outcome),
        ),
        shown,
    )


def replay_fixture(agent: CommandAgent, name: str, exit_code: int = 0) -> AgentResult:
    return replay(agent, fixture(f"{name}.stdout"), fixture(f"{name}.stderr"), exit_code)[0]


def fake_cli(
    bin_dir: Path,
    name: str,
    monkeypatch: pytest.MonkeyPatch,
    *,
    stdout: bytes = b"",
    stderr: bytes = b"",
    exit_code: int = 0,
) -> Path:
    """Put an executable called `name` first on PATH that prints `stdout`/`stderr` and exits
    with `exit_code`; returns the JSON-lines file where each call is recorded."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    data = bin_dir / f"{name}.data"
    data.mkdir(exist_ok=True)
    (data / "stdout").write_bytes(stdout)
    (data / "stderr").write_bytes(stderr)
    record = data / "calls.jsonl"
    env = {
        "FAKE_STDOUT": str(data / "stdout"),
        "FAKE_STDERR": str(data / "stderr"),
        "FAKE_EXIT": str(exit_code),
        "FAKE_RECORD": str(record),
    }
    wrapper(bin_dir, name, [sys.executable, str(FAKES / "fake_cli.py")], env)
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    return record


def request(root: Path, prompt: str = "do the work") -> AgentRequest:
    """One IMPLEMENT rotation's request for PROMPT.md, its prompt written to disk."""
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
        confined=OPEN,
    )


def command(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, prompt: str = "do the work"
) -> tuple[list[str], Path | None]:
    """Agent `name`'s arguments after its executable (a fake one on PATH), and its stdin."""
    exe = {"cursor": "cursor-agent"}.get(name, name)
    fake_cli(tmp_path / "bin", exe, monkeypatch)
    agent = make_agent(name, None, {}, "M1", ["--extra"])
    argv, stdin = agent.command(request(tmp_path, prompt))
    assert argv[0] == str(tmp_path / "bin" / exe)
    return list(argv[1:]), stdin
