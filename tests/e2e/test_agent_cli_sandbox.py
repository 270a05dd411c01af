"""End to end: the REAL Claude Code and Codex CLIs reach 3/3 inside the srt sandbox, talking only
to the mock LLM on 127.0.0.1 (allowed as a host), their config folders in a private HOME."""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import Project
from tests.e2e import test_agent_clis as e2e

pytestmark = [pytest.mark.slow]


@pytest.fixture
def disk_tmp() -> Iterator[Path]:
    """A folder under /tmp: srt drops every rule under /dev, where the suite's tmp_path is."""
    path = Path(tempfile.mkdtemp(prefix="ralph-test-", dir="/tmp"))
    yield path
    shutil.rmtree(path, ignore_errors=True)


@pytest.fixture
def disk_project(disk_tmp: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    project = Project(disk_tmp / "proj", monkeypatch)
    project.root.mkdir()
    project.git("init", "-q")
    return project


def need_srt() -> None:
    missing = [t for t in ("bwrap", "socat") if shutil.which(t) is None]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed (apt-get install bubblewrap socat)")
    if not (e2e.BIN / "srt").exists():
        pytest.skip(f"sandbox-runtime not installed in {e2e.E2E_DIR} (`make e2e-agents`)")


@pytest.mark.parametrize("agent", ["claude", "codex"])
def test_a_real_cli_reaches_three_of_three_inside_the_sandbox(
    agent: str,
    disk_project: Project,
    disk_tmp: Path,
    mock_llm: Any,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    e2e.need(agent)
    need_srt()
    mock = mock_llm(e2e.full_run_script(agent), disk_project.root)
    setup = e2e.setup_for(agent, mock, disk_tmp / "home", monkeypatch)
    e2e.put_on_path(monkeypatch)
    config = json.loads(e2e.ralph_yaml(agent, setup))
    # Claude's ANTHROPIC_BASE_URL names the mock, so its host is allowed without being listed;
    # Codex takes its endpoint in -c arguments, which ralph does not read: the user lists it.
    hosts = [] if agent == "claude" else [f"127.0.0.1:{mock.port}"]
    config["sandbox"] = {"profile": "srt", "allow_hosts": hosts}
    disk_project.write(
        {"PROMPT.md": "# Goal\n\nCreate hello.txt.\n", "ralph.yaml": json.dumps(config)}
    )
    disk_project.commit_all()
    result = disk_project.run_subprocess("run", "--plain", timeout=600)
    assert result.exit_code == 0, result.stderr
    assert "sandbox srt" in result.stdout
    assert disk_project.counts() == {"PROMPT.md": 3}
    assert (disk_project.root / "hello.txt").read_text() == "hello from the real CLI\n"
    ends = disk_project.rotation_ends()
    assert [e["done_count"] for e in ends] == [0, 1, 2, 3]
    assert not [r for r in mock.requests() if r.get("kind") == "blocked_egress"]
    assert "Read-only file system" not in (disk_project.root / ".ralph" / "current.log").read_text()
