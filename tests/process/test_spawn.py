"""process/spawn.py: starting a process in its own session, with what the run hands it; a
start that fails is a StartError naming the program and the system's reason."""

from __future__ import annotations

import ast
import json
import os
import sys
from pathlib import Path

import pytest

from ralph.process.allowlist import AllowList
from ralph.process.request import OPEN, ProcessRequest
from ralph.process.spawn import StartError, spawn

posix_only = pytest.mark.skipif(sys.platform == "win32", reason="sessions and modes are POSIX's")


def request(argv: tuple[str, ...], cwd: Path, **kwargs: object) -> ProcessRequest:
    options = {"confined": OPEN, **kwargs}
    return ProcessRequest(argv=argv, cwd=cwd, env=dict(os.environ), **options)  # type: ignore[arg-type]


def test_only_the_process_package_starts_processes() -> None:
    """Limits, kills and orphan reaping hold only for processes started in ralph.process."""
    src = Path(__file__).resolve().parents[2] / "src" / "ralph"
    starters: list[str] = []
    popens: list[str] = []
    for path in sorted(src.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
                continue
            owner = node.func.value
            name = f"{owner.id}.{node.func.attr}" if isinstance(owner, ast.Name) else ""
            if name in ("subprocess.Popen", "subprocess.run") or name.startswith("subprocess.c"):
                popens.append(path.name)
            starts = ("subprocess.", "os.exec", "os.spawn", "os.posix_spawn", "os.system")
            if (name.startswith(starts) or name == "os.fork") and path.parent.name != "process":
                starters.append(f"{path.relative_to(src).as_posix()}: {name}")
    assert starters == []
    # and each through process/started.py, which records it: an orphan is what it did not start
    assert sorted(set(popens)) == ["started.py"]


@pytest.mark.slow  # starts a process
@posix_only
def test_a_process_leads_its_own_session_with_its_stdin_and_the_runs_environment(
    tmp_path: Path,
) -> None:
    prompt = tmp_path / "prompt.md"
    prompt.write_text("the prompt")
    show = (
        "import json, os, sys; print(json.dumps([os.getsid(0) == os.getpid(), "
        "sys.stdin.read(), sorted(k for k in os.environ if k.startswith('RALPH_'))]))"
    )
    env = {**os.environ, "RALPH_MODE": "IMPLEMENT", "RALPH_WEBHOOK_URL": "https://hook"}
    req = ProcessRequest(
        argv=(sys.executable, "-c", show), cwd=tmp_path, env=env, stdin_path=prompt, confined=OPEN
    )
    proc = spawn(req, allow=AllowList())
    out, _ = proc.communicate(timeout=120)
    own_session, stdin, names = json.loads(out)
    assert own_session and stdin == "the prompt"
    assert "RALPH_MODE" in names and "RALPH_WEBHOOK_URL" not in names


@pytest.mark.slow  # tries to start a process
def test_missing_executable_raises_start_error(tmp_path: Path) -> None:
    missing = str(tmp_path / "no-such-agent")
    with pytest.raises(StartError) as caught:
        spawn(request((missing, "-p"), tmp_path))
    assert caught.value.program == missing
    assert isinstance(caught.value.error, FileNotFoundError)
    assert str(caught.value) == f"{missing}: {caught.value.reason}"
    assert caught.value.stdin is None


@pytest.mark.slow  # tries to start a process
@posix_only
def test_non_executable_file_raises_start_error(tmp_path: Path) -> None:
    script = tmp_path / "agent"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o644)
    with pytest.raises(StartError) as caught:
        spawn(request((str(script),), tmp_path))
    assert isinstance(caught.value.error, PermissionError)


@pytest.mark.slow  # tries to start a process
def test_missing_working_directory_raises_start_error_naming_it(tmp_path: Path) -> None:
    with pytest.raises(StartError) as caught:
        spawn(request((sys.executable, "-c", "pass"), tmp_path / "gone"))
    assert caught.value.cwd == tmp_path / "gone"
    assert caught.value.reason.startswith(f"{tmp_path / 'gone'}: ")


def test_missing_stdin_file_raises_start_error(tmp_path: Path) -> None:
    with pytest.raises(StartError) as caught:
        spawn(request((sys.executable, "-c", "pass"), tmp_path, stdin_path=tmp_path / "nope"))
    assert caught.value.stdin == tmp_path / "nope"
    assert caught.value.reason.startswith(f"cannot read {tmp_path / 'nope'}: ")
