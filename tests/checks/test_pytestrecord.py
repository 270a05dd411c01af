"""checks/pytestrecord.py, the plugin, in a real pytest as a room's run loads it: no test's
name in PYTEST_CURRENT_TEST, and a record of the session that only pytest's end completes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from ralph.checks import pytestrecord, runrecord

pytestmark = pytest.mark.slow  # it starts pytest

TESTS = """\
import os, subprocess, sys

def test_named():
    assert os.environ["PYTEST_CURRENT_TEST"] == "test::test (call)"

def test_enumerated():
    assert not [v for v in os.environ.values() if "test_enumerated" in v]

def test_nested(tmp_path):  # a session a test starts records nothing of its own
    (tmp_path / "test_in.py").write_text("def test_in(): pass\\n")
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)]
    assert subprocess.run(args, check=False).returncode == 0
"""
EXITS = """\
import os

def test_one():
    pass

def test_exits():
    print("2 passed in 0.01s", flush=True)
    os._exit(0)
"""


def run(room: Path, name: str, text: str) -> tuple[int, list[dict[str, object]]]:
    runrecord.place(room)
    (room / name).write_text(text)
    env = runrecord.env({"PATH": "/usr/bin:/bin", "PYTHONDONTWRITEBYTECODE": "1"}, room)
    args = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", name]
    code = subprocess.run(args, cwd=room, env=env, capture_output=True, check=False).returncode
    found = sorted(runrecord.folder(room).glob("session-*.json"))
    return code, [json.loads(p.read_text()) for p in found]


def test_no_test_name_reaches_the_code_and_one_session_records_its_end(tmp_path: Path) -> None:
    assert pytestrecord.HIDDEN == "test::test"  # what TESTS expect to read
    code, records = run(tmp_path, "test_named.py", TESTS)
    assert code == 0
    assert len(records) == 1  # the nested session wrote none
    (data,) = records
    assert data["stage"] == "ended" and data["collected"] == 3 and data["ran"] == 3
    assert data["passed"] == 3 and data["failed"] == 0
    got = runrecord.read(tmp_path)
    assert got is not None and got.refusal is None


def test_os_exit_in_a_test_leaves_a_session_that_never_ended(tmp_path: Path) -> None:
    code, records = run(tmp_path, "test_exits.py", EXITS)
    assert code == 0  # pytest's exit code and summary line are the code's word
    assert [r["stage"] for r in records] == ["collected"]
    got = runrecord.read(tmp_path)
    assert got is not None and got.refusal is not None and "stopped before its end" in got.refusal
