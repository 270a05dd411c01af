"""No secret reaches anything ralph writes: an agent that prints its keys (credential variables
from the environment and from ralph.yaml, key-shaped strings, a key cut across two chunks, on
stdout and stderr, in its handoff and its error) leaves no trace of them under .ralph/, in the
reports, or in ralph's own output (headless, -v, JSON events)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Project
from tests.fakes.leaky_agent import NAMED, PEM_BODY, SHAPES

pytestmark = pytest.mark.slow

LEAKY = Path(__file__).parents[1] / "fakes" / "leaky_agent.py"
ENV = {
    "ANTHROPIC_API_KEY": "sk-ant-api03-ENVKEY-aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa",
    "OPENAI_API_KEY": "plain-openai-secret-value-42",
    "MY_SERVICE_TOKEN": "tok_1234567890abcdef",
    "DB_PASSWORD": "correct horse battery staple",
    "WEIRD_VAR": "sk-proj-ZZ9yy8XX7ww6VV5uu4TT3ss2RR1qq0",  # a key's shape, whatever its name
}
FROM_CONFIG = {"SERVICE_API_KEY": "from-ralph-yaml-only-0xDEADBEEF"}  # agent.env in ralph.yaml
IN_SPEC = "AIzaSyA-spec0text0quotes0a0google0key00"  # a key in the spec the user wrote
SECRETS = [*ENV.values(), *FROM_CONFIG.values(), *SHAPES, IN_SPEC, *PEM_BODY]
SECRETS += [secret for _, secret, _ in NAMED]


def ralph(project: Project, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ralph", *args],
        cwd=project.root,
        env={**os.environ, **ENV},
        capture_output=True,
        timeout=120,
        check=False,
    )


def leaks(data: bytes) -> list[str]:
    return [s for s in SECRETS if s.encode() in data]


def leaks_in_files(folder: Path) -> dict[str, list[str]]:
    found = {}
    for path in folder.rglob("*"):
        if path.is_file() and leaks(path.read_bytes()):
            found[str(path.relative_to(folder))] = leaks(path.read_bytes())
    return found


def leaky_project(project: Project, tmp_path: Path) -> Path:
    """PROMPT.md with a check that prints a key once, ralph.yaml running the leaky agent with
    a key of its own in agent.env; the check's marker file."""
    mark = tmp_path / "check-failed-once"
    # A completion check that prints a key and fails once: its output reaches the handoff note,
    # errors.log and the worklog through ralph's own records, not the agent's output.
    check = f"test -e {mark} || {{ touch {mark}; echo token $MY_SERVICE_TOKEN; exit 1; }}"
    project.write(
        {
            "PROMPT.md": "---\nchecks:\n  - name: leak\n    method: external\n    cache: false\n"
            f"    config: {{command: {json.dumps(check)}}}\n---\n# goal\nuse {IN_SPEC}\n",
            "ralph.yaml": "agent:\n"
            f"  command: {json.dumps([sys.executable, str(LEAKY)])}\n"
            f"  env: {json.dumps(FROM_CONFIG)}\n",
        }
    )
    project.commit_all()
    return mark


@pytest.mark.parametrize("display", [["--headless", "-v"], ["--log-format", "json", "-v"]])
def test_an_agent_printing_its_keys_leaves_them_nowhere(
    git_project: Project, tmp_path: Path, display: list[str]
) -> None:
    mark = leaky_project(git_project, tmp_path)
    report, junit = tmp_path / "report.json", tmp_path / "junit.xml"
    res = ralph(git_project, "run", *display, "--report-json", str(report), "--junit", str(junit))
    assert res.returncode == 0, (res.stdout + res.stderr).decode()
    assert leaks(res.stdout) == [] and leaks(res.stderr) == []
    assert leaks_in_files(git_project.root / ".ralph") == {}
    assert leaks(report.read_bytes()) == [] and leaks(junit.read_bytes()) == []
    # The output was there, redacted: the first rotation's log shows where the keys were.
    history = b"".join(p.read_bytes() for p in (git_project.root / ".ralph").rglob("*.log"))
    assert b"I can see [REDACTED] in my environment" in history
    assert b"export OPENAI_API_KEY=[REDACTED] # done" in history  # cut in two, still found
    assert b"authentication failed for [REDACTED]" in history
    assert b"config: postgres://app:[REDACTED]@db.internal" in history  # the name is kept
    assert b"[REDACTED]\nafter the key\n" in history  # the key's block, across two chunks
    assert b"[REDACTED]" in res.stdout  # -v shows the agent's output, redacted
    assert mark.exists()  # the check did print its token once
    records = [p.read_bytes() for p in (git_project.root / ".ralph").rglob("*") if p.is_file()]
    assert [r for r in records if b"token [REDACTED]" in r], "the check's output was recorded"
    status = ralph(git_project, "status", "--json", "--log")
    assert leaks(status.stdout) == []


@pytest.mark.skipif(sys.platform == "win32", reason="pty")
def test_the_live_panel_shows_no_key(git_project: Project, tmp_path: Path) -> None:
    from tests.e2e.test_headless import run_in_terminal

    leaky_project(git_project, tmp_path)
    code, out = run_in_terminal(git_project, "run", env=ENV)
    assert code == 0, out
    assert "\x1b[" in out  # the panel, not plain lines
    assert leaks(out.encode()) == []
    assert leaks_in_files(git_project.root / ".ralph") == {}


def test_a_failing_test_command_that_prints_a_key_is_redacted_everywhere(
    git_project: Project, tmp_path: Path
) -> None:
    # Not the agent's output: the project's tests, run by ralph in the final verification; their
    # output reaches the displays, errors.log and the handoffs through the run's own records.
    done = [{"signal": "DONE"}]
    git_project.write(
        {
            "PROMPT.md": "# goal\n",
            "ralph.yaml": "test_command: 'echo token $MY_SERVICE_TOKEN; exit 1'\n"
            "max_verification_failures: 1\n",
        }
    )
    git_project.commit_all()
    agent = git_project.script({"*": done, "VERIFY": [{"signal": "VERIFY_PASS"}]})
    res = ralph(git_project, "run", "--agent-command", agent, "--headless", "-n", "5")
    assert res.returncode == 6, (res.stdout + res.stderr).decode()
    assert b"token [REDACTED]" in res.stdout + res.stderr
    assert leaks(res.stdout + res.stderr) == []
    assert leaks_in_files(git_project.root / ".ralph") == {}
