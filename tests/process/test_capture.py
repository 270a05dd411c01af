"""process/capture.py: ralph's own short commands (git): the environment given or ralph's,
stdin closed, in a session of their own (a Ctrl-C meant for ralph does not cut them off)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from ralph.process.capture import run_captured

EMPTY_BLOB = "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"


def _config(value: str) -> dict[str, str]:
    return {"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "ralph.test", "GIT_CONFIG_VALUE_0": value}


def test_the_environment_given_is_the_whole_of_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
    monkeypatch.setenv("GIT_CONFIG_KEY_0", "ralph.test")
    monkeypatch.setenv("GIT_CONFIG_VALUE_0", "ralphs")
    ask = ["git", "config", "--get", "ralph.test"]
    assert run_captured(ask, tmp_path).stdout.strip() == b"ralphs"  # None: ralph's own
    given = {"PATH": os.environ["PATH"], **_config("given")}
    assert run_captured(ask, tmp_path, given).stdout.strip() == b"given"


def test_stdin_is_closed(tmp_path: Path) -> None:
    done = run_captured(["git", "hash-object", "--stdin"], tmp_path)
    assert done.stdout.strip().decode() == EMPTY_BLOB  # read nothing, waited for nothing


@pytest.mark.skipif(sys.platform == "win32", reason="sessions are POSIX's")
def test_the_command_leads_its_own_session(tmp_path: Path) -> None:
    # git's alias runs a shell, git's child: it says the session of its parent, git
    sid = ["git", "-c", "alias.sid=!ps -o sid= -p $PPID", "sid"]
    git_sid = int(run_captured(sid, tmp_path).stdout.strip())
    assert git_sid != os.getsid(0)
