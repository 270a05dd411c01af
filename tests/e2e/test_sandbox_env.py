"""A sandboxed agent gets only what it needs of ralph's environment: the basic variables,
ralph's own, its CLI's own credentials and what ralph.yaml's `sandbox.env` names. Played with
real programs through the real CLI and real bubblewrap."""

from __future__ import annotations

import json
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.conftest import Project
from tests.e2e.test_sandbox_run import need

FAKES = Path(__file__).parents[1] / "fakes"
SECRETS = {
    "AWS_SECRET_ACCESS_KEY": "aws-secret-value",
    "GITHUB_TOKEN": "ghp_notreallyatoken000000000000000000",
    "DATABASE_URL": "postgres://u:pw@db/x",
}
# Writes the environment it got into the project, then asks for another rotation.
DUMP = """\
import json, os, pathlib
pathlib.Path("env.json").write_text(json.dumps(dict(os.environ)))
print("<ralph>CONTINUE</ralph>")
"""


@pytest.fixture
def disk_project(monkeypatch: pytest.MonkeyPatch) -> Iterator[Project]:
    """A project on disk outside /tmp (bwrap gives the sandbox a /tmp of its own)."""
    base = "/var/tmp" if Path("/var/tmp").is_dir() else None
    where = Path(tempfile.mkdtemp(prefix="ralph-test-", dir=base))
    monkeypatch.setenv("HOME", str(where / "home"))
    (where / "home").mkdir()
    project = Project(where / "proj", monkeypatch)
    project.root.mkdir()
    project.git("init", "-q")
    project.write({"specs/a.spec.md": "# A\n\nDo it.\n", ".gitignore": "fake/\n"})
    for name, value in SECRETS.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setenv("PASSED_ON", "by-name")
    yield project
    shutil.rmtree(where, ignore_errors=True)


def seen(project: Project) -> dict[str, str]:
    data = json.loads((project.root / "env.json").read_text())
    assert isinstance(data, dict)
    return data


@pytest.mark.slow
def test_a_sandboxed_custom_agent_sees_no_secret_of_ralphs_environment_but_what_is_named(
    disk_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    need("bwrap", monkeypatch)
    agent = disk_project.root.parent / "dump.py"
    agent.write_text(DUMP)
    disk_project.write({"ralph.yaml": "sandbox:\n  profile: bwrap\n  env: [PASSED_ON]\n"})
    result = disk_project.run_subprocess(
        "run", "--agent-command", f"{sys.executable} {agent}", "-n", "1", "--headless"
    )
    assert result.exit_code == 3, result
    env = seen(disk_project)
    assert not set(SECRETS) & set(env)
    assert env["PASSED_ON"] == "by-name"
    # what every program needs, and ralph's own contract, still there
    assert env["PATH"] == os.environ["PATH"] and env["HOME"] == os.environ["HOME"]
    assert env["RALPH_SPEC"] == "specs/a.spec.md" and env["RALPH_SANDBOX"] == "bwrap"
    assert "RALPH_PROMPT_FILE" in env and "RALPH_RUN_ID" in env


@pytest.mark.slow
def test_without_a_sandbox_the_agent_runs_with_ralphs_environment_less_ralphs_own(
    disk_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """It runs as the person and could read ralph's environment in /proc: a list would hold
    nothing back. ralph's own variables it is not handed (documented)."""
    monkeypatch.setenv("RALPH_PRIVATE", "ralphs-own")
    agent = disk_project.root.parent / "dump.py"
    agent.write_text(DUMP)
    result = disk_project.run_subprocess(
        "run", "--agent-command", f"{sys.executable} {agent}", "-n", "1", "--headless"
    )
    assert result.exit_code == 3, result
    env = seen(disk_project)
    assert set(SECRETS) <= set(env)  # the user's own shell, as documented
    assert "RALPH_PRIVATE" not in env and env["RALPH_SPEC"] == "specs/a.spec.md"


HOOK = "http://127.0.0.1:9/services/T000/B000/webhook-secret-part"


@pytest.mark.parametrize("profile", ["off", "bwrap", "srt"])
def test_the_webhook_url_reaches_no_agent_whatever_holds_it(
    profile: str, disk_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The docs' variable for the secret URL, and a variable of another name holding it that
    ralph.yaml even names in `sandbox.env`: neither reaches the agent, in any mode. What
    `sandbox.env` names otherwise does (the control), and no unlisted secret in a sandbox."""
    if profile != "off":
        need(profile, monkeypatch)
    monkeypatch.setenv("RALPH_WEBHOOK_URL", HOOK)
    monkeypatch.setenv("HOOK_COPY", f"the hook is {HOOK}")
    agent = disk_project.root.parent / "dump.py"
    agent.write_text(DUMP)
    config = {
        "sandbox": {"profile": profile, "env": ["PASSED_ON", "HOOK_COPY", "RALPH_WEBHOOK_URL"]},
        "notify": {"webhook": "$RALPH_WEBHOOK_URL"},
    }
    disk_project.write({"ralph.yaml": json.dumps(config)})
    result = disk_project.run_subprocess(
        "run", "--agent-command", f"{sys.executable} {agent}", "-n", "1", "--headless"
    )
    assert result.exit_code == 3, result
    env = seen(disk_project)
    assert "webhook-secret-part" not in json.dumps(env)
    assert env["PASSED_ON"] == "by-name"  # what sandbox.env names, the agent gets
    assert env["RALPH_SPEC"] == "specs/a.spec.md" and "RALPH_PROMPT_FILE" in env
    if profile != "off":
        assert not set(SECRETS) & set(env)
        assert env["RALPH_SANDBOX"] == profile


def test_a_sandboxed_cli_keeps_its_own_api_key_and_its_settings(
    disk_project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    need("bwrap", monkeypatch)
    fake = disk_project.root / "fake"
    (fake / "bin").mkdir(parents=True)
    script = fake / "claude.json"
    script.write_text(json.dumps([{"kind": "continue"}]))
    wrapper = fake / "bin" / "claude"
    wrapper.write_text(
        f'#!/bin/sh\n"{sys.executable}" -c \'import json,os; open("env.json","w").write('
        f"json.dumps(dict(os.environ)))'\n"
        f'exec "{sys.executable}" "{FAKES / "fake_claude.py"}" "$@"\n'
    )
    wrapper.chmod(0o755)
    monkeypatch.setenv("PATH", f"{fake / 'bin'}{os.pathsep}{os.environ['PATH']}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-own-key")
    monkeypatch.setenv("FAKE_CLAUDE_SCRIPT", str(script))
    disk_project.write(
        {"ralph.yaml": "agent: claude\nsandbox:\n  profile: bwrap\n  env: [FAKE_CLAUDE_SCRIPT]\n"}
    )
    result = disk_project.run_subprocess("run", "-n", "1", "--headless")
    assert result.exit_code == 3, result
    assert "CONTINUE" in result.stdout
    env = seen(disk_project)
    assert env["ANTHROPIC_API_KEY"] == "sk-ant-own-key"  # its own credential
    assert env["DISABLE_AUTOUPDATER"] == "1"  # the defaults ralph sets for the CLI
    assert not set(SECRETS) & set(env)


def test_a_bad_name_in_sandbox_env_is_one_line(disk_project: Project) -> None:
    disk_project.write({"ralph.yaml": "sandbox:\n  env: ['A B']\n"})
    result = disk_project.run_subprocess("run", "--agent-command", "true", "-n", "1")
    assert result.exit_code == 1, result
    assert "Traceback" not in result.stderr
    errors = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "sandbox.env" in errors[0] and "A B" in errors[0], result
