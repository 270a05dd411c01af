"""Fixtures: a project in a temporary folder, and the real CLI run against it."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from ralph.cli import app
from tests.fakes.plugins import add_agent
from tests.fakes.scripted_inline import ScriptedInlineAgent, inline_agent
from tests.model.server import ModelServer
from tests.slowness import (
    did,
    mark_slow,
    slow_is_what_it_does,  # noqa: F401 -- autouse: set up first
)

FAKES = Path(__file__).parent / "fakes"
SCRIPTED_AGENT = FAKES / "scripted_agent.py"

# The suite creates and deletes some 20,000 small files (git repositories, state written with
# fsync): on a disk-backed /tmp that cost more than the tests themselves (measured: deleting one
# session's folders took 25 s on an ext4 mounted with discard). Temporary folders go to memory
# where the machine has one with room to spare (a container's is often 64 MB), unless TMPDIR
# already says where they go.
_MEMORY = Path("/dev/shm")
if (
    "TMPDIR" not in os.environ
    and _MEMORY.is_dir()
    and os.access(_MEMORY, os.W_OK | os.X_OK)
    and shutil.disk_usage(_MEMORY).free >= 2 << 30
):
    os.environ["TMPDIR"] = str(_MEMORY)
    tempfile.tempdir = None  # gettempdir() reads TMPDIR again


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    mark_slow(items)  # tests/slowness.py: slow is what a test does


@pytest.fixture(autouse=True)
def isolated_env(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> None:
    """No test reaches the real home, picks up colours, or waits for the demo agent."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("HOME", str(home))
    # ralph's private store (store/disk/private.py) lives under the state folder: per test too
    monkeypatch.setenv("XDG_STATE_HOME", str(home / ".local" / "state"))
    monkeypatch.setenv("LOCALAPPDATA", str(home / "AppData" / "Local"))
    monkeypatch.setenv("RALPH_DEMO_DELAY", "0")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("NO_COLOR", raising=False)
    # CI sets these; tests choose the environment they test (headless is tested explicitly).
    monkeypatch.delenv("CI", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    monkeypatch.setenv("COLUMNS", "100")


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str
    project: Project

    @property
    def state(self) -> dict[str, Any]:
        return self.project.state()

    def __repr__(self) -> str:
        return (
            f"Result(exit_code={self.exit_code}, stdout=\n{self.stdout}\nstderr=\n{self.stderr}\n"
            f"state={json.dumps(self.project.state_or_none(), indent=1)})"
        )


@dataclass
class Project:
    root: Path
    monkeypatch: pytest.MonkeyPatch

    def write(self, files: dict[str, str]) -> None:
        for name, content in files.items():
            path = self.root / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content)

    @property
    def store(self) -> Path:
        """ralph's private store for this project (store/disk/private.py)."""
        from ralph.store.disk.private import store_dir

        return store_dir(self.root)

    def git(self, *args: str) -> str:
        out = subprocess.run(
            ["git", "-c", "user.name=t", "-c", "user.email=t@t", *args],
            cwd=self.root,
            check=True,
            capture_output=True,
            text=True,
        )
        return out.stdout

    def commit_all(self, message: str = "init") -> None:
        self.git("add", "-A")
        self.git("commit", "-qm", message)

    def script(self, steps: dict[str, Any]) -> str:
        """Write a scripted-agent script outside the tree; returns the --agent-command."""
        return f"{sys.executable} {SCRIPTED_AGENT} {self._script_file(steps)}"

    def fake(self, steps: dict[str, Any]) -> tuple[str, str]:
        """The same script played in-process (tests/fakes/scripted_inline.py), without starting
        Python for every rotation; returns the run's agent options. For tests whose subject is
        not the agent's process (its PID, signals, timeouts): those use `script`."""
        path = self._script_file(steps)
        add_agent(self.monkeypatch, inline_agent(path))
        return ("--agent", ScriptedInlineAgent.key)

    def _script_file(self, steps: dict[str, Any]) -> Path:
        path = self.root.parent / f"{self.root.name}-script.json"
        path.write_text(json.dumps(steps))
        return path

    def all_calls(self) -> list[dict[str, Any]]:
        """Every call of the scripted agent, final verifications included, in order."""
        path = self.root.parent / f"{self.root.name}-script.json.calls.jsonl"
        if not path.exists():
            return []
        return [json.loads(line) for line in path.read_text().splitlines()]

    def calls(self) -> list[dict[str, Any]]:
        """The scripted agent's spec rotations (final verifications left out)."""
        return [c for c in self.all_calls() if c["mode"] != "VERIFY"]

    def verify_calls(self) -> list[dict[str, Any]]:
        return [c for c in self.all_calls() if c["mode"] == "VERIFY"]

    def worklog(self, event: str | None = None) -> list[dict[str, Any]]:
        """The records of .ralph/worklog.jsonl (of one kind of event), in order."""
        path = self.root / ".ralph" / "worklog.jsonl"
        records = [json.loads(line) for line in path.read_text().splitlines()]
        return [r for r in records if event is None or r.get("event") == event]

    def state(self) -> dict[str, Any]:
        data = json.loads((self.root / ".ralph" / "state.json").read_text())
        assert isinstance(data, dict)
        return data

    def state_or_none(self) -> dict[str, Any] | None:
        try:
            return self.state()
        except (OSError, ValueError):
            return None

    def rotation_ends(self) -> list[dict[str, Any]]:
        """The `rotation_end` records of .ralph/worklog.jsonl, in order."""
        lines = (self.root / ".ralph" / "worklog.jsonl").read_text().splitlines()
        return [e for e in map(json.loads, lines) if e.get("event") == "rotation_end"]

    def counts(self) -> dict[str, int]:
        return {s["path"]: s["done_count"] for s in self.state()["specs"]}

    def run(self, *args: str) -> Result:
        """The CLI in-process (CliRunner): fast, and through the same code as the console."""
        runner = CliRunner()
        cwd = Path.cwd()
        os.chdir(self.root)
        try:
            res = runner.invoke(app, list(args), catch_exceptions=False)
        finally:
            os.chdir(cwd)
        # a command line refused before the run began (exit 2), or its help, ran nothing
        if args[:1] == ("run",) and res.exit_code != 2 and "--help" not in args:
            did("drives `ralph run` end to end")
        return Result(res.exit_code, res.stdout, res.stderr, self)

    def run_subprocess(self, *args: str, timeout: float = 60) -> Result:
        """The CLI as a real process, for signals and kill tests."""
        did("runs ralph as a process")
        proc = subprocess.run(
            [sys.executable, "-m", "ralph", *args],
            cwd=self.root,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return Result(proc.returncode, proc.stdout, proc.stderr, self)


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    root = tmp_path / "proj"
    root.mkdir()
    yield Project(root, monkeypatch)


@pytest.fixture
def git_project(project: Project) -> Project:
    project.git("init", "-q")
    return project


@pytest.fixture
def mock_llm() -> Iterator[Callable[[dict[str, Any], Path], ModelServer]]:
    """Starts the project's scripted model server (tests/model/) on 127.0.0.1: call it with a
    script and the folder "{cwd}" falls back to; every server started is stopped at the end."""
    servers: list[ModelServer] = []

    def start(script: dict[str, Any], cwd: Path) -> ModelServer:
        servers.append(ModelServer(script, str(cwd)))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()
