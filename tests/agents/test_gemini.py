"""agents/gemini.py: gemini CLI."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from ralph.agents.gemini import GeminiAgent
from ralph.agents.result import Usage
from tests.agent_helpers import command, fixture, replay, replay_fixture, request


def test_gemini_command_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv, stdin = command("gemini", tmp_path, monkeypatch)
    assert argv == [
        "--output-format",
        "stream-json",
        "--yolo",
        "--skip-trust",
        "-m",
        "M1",
        "--extra",
        "-p",
        "do the work",
    ]
    assert stdin is None  # Gemini appends piped stdin to the prompt


def _secure_folder(tmp: Path) -> Path:
    """A folder whose every parent only its owner may write (Gemini's rule for its system
    defaults file): temporary folders are below /tmp or /dev/shm, so one inside the checkout."""
    folder = Path(__file__).resolve().parents[2] / "build" / f"cache-{tmp.name}"
    folder.mkdir(parents=True, exist_ok=True)
    if any(p.stat().st_mode & 0o022 for p in (folder, *folder.parents)):
        shutil.rmtree(folder)
        pytest.skip("the checkout is below a folder others may write")
    return folder


def test_gemini_auto_update_and_usage_statistics_off_through_system_defaults(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", raising=False)
    cache = _secure_folder(tmp_path)
    monkeypatch.setenv("XDG_CACHE_HOME", str(cache))
    try:
        env = GeminiAgent().build_env(request(tmp_path))
        defaults = json.loads(Path(env["GEMINI_CLI_SYSTEM_DEFAULTS_PATH"]).read_text())
        assert defaults["general"]["enableAutoUpdate"] is False
        assert defaults["privacy"]["usageStatisticsEnabled"] is False
        assert Path(env["GEMINI_CLI_SYSTEM_DEFAULTS_PATH"]).parent == cache / "ralph"
    finally:
        shutil.rmtree(cache)
    own = {"GEMINI_CLI_SYSTEM_DEFAULTS_PATH": "/etc/mine.json"}
    assert GeminiAgent(env=own).build_env(request(tmp_path))["GEMINI_CLI_SYSTEM_DEFAULTS_PATH"] == (
        "/etc/mine.json"
    )


def test_gemini_gets_no_defaults_file_where_it_would_call_it_insecure(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Below a folder others may write (a HOME under /tmp), Gemini skips the file with a
    warning that hid the real error: ralph passes none (telemetry stays off by variable)."""
    monkeypatch.delenv("GEMINI_CLI_SYSTEM_DEFAULTS_PATH", raising=False)
    shared = tmp_path / "shared"
    shared.mkdir(mode=0o777)
    shared.chmod(0o1777)
    monkeypatch.setenv("XDG_CACHE_HOME", str(shared / "cache"))
    env = GeminiAgent().build_env(request(tmp_path))
    assert "GEMINI_CLI_SYSTEM_DEFAULTS_PATH" not in env
    assert env["GEMINI_TELEMETRY_ENABLED"] == "false"


def test_a_gemini_that_fails_to_start_reports_its_real_cause_not_its_chatter() -> None:
    """Exit 41 without a login: the YOLO notice and the defaults warning come first on stderr;
    the error names the missing auth method."""
    stderr = (
        "Security Warning: Skipping system defaults file '/x/d.json': Parent directory '/tmp' "
        'is insecure. To fix this, run: sudo chmod g-w,o-w "/tmp"\n'
        "YOLO mode is enabled. All tool calls will be automatically approved.\n"
        "Please set an Auth method in your /h/.gemini/settings.json or specify one of the "
        "following environment variables before running: GEMINI_API_KEY\n"
    )
    result, _ = replay(GeminiAgent(), b"", stderr.encode(), exit_code=41)
    assert result.failure is not None
    assert result.failure.endswith(
        ": Please set an Auth method in your /h/.gemini/settings.json"
        " or specify one of the following environment variables before running: GEMINI_API_KEY"
    )
    assert "chmod" not in result.failure


def test_gemini_success() -> None:
    result, shown = replay(GeminiAgent(), fixture("gemini-write-done.stdout"))
    assert result.final_text == "Created hello.txt. <ralph>DONE</ralph>"  # after the last tool
    assert result.usage == Usage(1334, 76, None)
    assert result.failure is None
    assert "[write_file] /root/.cache/ralph-e2e/scratch/hello.txt" in shown
    assert "Creating the file." in shown
    assert not any("report completion" in line for line in shown)  # the echoed prompt


def test_gemini_streamed_text_is_shown_line_by_line_and_joined_for_the_signal() -> None:
    events = [
        {"type": "message", "role": "user", "content": "say <ralph>DONE</ralph>"},
        {
            "type": "message",
            "role": "assistant",
            "content": "All good.\nSignal: <ral",
            "delta": True,
        },
        {"type": "message", "role": "assistant", "content": "ph>DONE</ralph>", "delta": True},
        {"type": "result", "status": "success", "stats": {"input_tokens": 5, "output_tokens": 2}},
    ]
    stdout = "".join(json.dumps(e) + "\n" for e in events).encode()
    result, shown = replay(GeminiAgent(), stdout)
    assert result.final_text == "All good.\nSignal: <ralph>DONE</ralph>"
    assert shown[:2] == ["All good.", "Signal: <ralph>DONE</ralph>"]


def test_gemini_daily_quota_is_a_rate_limit() -> None:
    result = replay_fixture(GeminiAgent(), "gemini-daily-quota", exit_code=173)
    assert result.fault is not None and result.fault.kind == "rate_limit"
    assert "exhausted your daily quota" in result.fault.message


def test_gemini_exit_0_without_a_result_is_a_failure_not_its_last_warning() -> None:
    stdout = b"\n".join(fixture("gemini-write-done.stdout").splitlines()[:3]) + b"\n"
    stderr = b"Ripgrep is not available. Falling back to GrepTool.\n"
    result, _ = replay(GeminiAgent(), stdout, stderr, exit_code=0)
    assert result.failure == "Gemini CLI ended without a successful result"


def test_gemini_invalid_key_is_an_auth_error() -> None:
    result = replay_fixture(GeminiAgent(), "gemini-bad-key", exit_code=144)
    assert result.fault is not None and result.fault.kind == "auth"


def test_gemini_auth_exit_code_without_output() -> None:
    result, _ = replay(GeminiAgent(), b"", b"Invalid auth method selected.\n", exit_code=41)
    assert result.fault is not None and result.fault.kind == "auth"
    assert result.failure == "exit code 41: Invalid auth method selected."
