"""agents/builtin.py: what every built-in agent shares."""

from __future__ import annotations

from pathlib import Path

import pytest

from ralph.agents.builtin import ARG_PROMPT_MAX
from tests.agent_helpers import command

BIG = "x" * (ARG_PROMPT_MAX + 1)


def test_gemini_long_prompt_points_at_the_prompt_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv, stdin = command("gemini", tmp_path, monkeypatch, BIG)
    assert BIG not in argv
    assert str(tmp_path / "prompt.md") in argv[-1]
    assert stdin is None  # read only within 500 ms of Gemini's start: unreliable


def test_cursor_long_prompt_points_at_the_prompt_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv, _ = command("cursor", tmp_path, monkeypatch, BIG)
    assert BIG not in argv
    assert str(tmp_path / "prompt.md") in argv[-1]
    assert len(argv[-1]) < 1000


def test_opencode_long_prompt_goes_to_stdin(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    argv, stdin = command("opencode", tmp_path, monkeypatch, BIG)
    assert BIG not in argv
    assert "-f" not in argv  # an attached file is cut at 50 KB
    assert stdin == tmp_path / "prompt.md"


def test_pi_long_prompt_is_attached(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    argv, _ = command("pi", tmp_path, monkeypatch, BIG)
    assert BIG not in argv
    assert f"@{tmp_path / 'prompt.md'}" in argv
