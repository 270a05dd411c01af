"""`ralph doctor`: the sandbox and every agent CLI checked without spending a token; exit 1 only
when something ralph.yaml needs is broken. Fake CLIs on a PATH of their own."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from tests.conftest import Project


@pytest.fixture
def bin_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The only folder on PATH: no real CLI or sandbox tool is found unless a test puts it."""
    path = tmp_path / "bin"
    path.mkdir()
    monkeypatch.setenv("PATH", str(path))
    for name in ("OPENAI_API_KEY", "CODEX_API_KEY", "CODEX_HOME"):
        monkeypatch.delenv(name, raising=False)
    return path


def fake(bin_dir: Path, name: str, body: str) -> None:
    tool = bin_dir / name
    tool.write_text(f"#!/bin/sh\n{body}\n")
    tool.chmod(0o755)


def fake_codex(bin_dir: Path) -> Path:
    calls = bin_dir.parent / "codex-calls"
    fake(bin_dir, "codex", f'echo "$@" >> {calls}; echo "codex-cli 0.169.0"')
    return calls


def test_a_needed_cli_without_credentials_fails_and_no_token_is_spent(
    project: Project, bin_dir: Path
) -> None:
    calls = fake_codex(bin_dir)
    project.write({"ralph.yaml": "agent: codex\n"})
    result = project.run("doctor")
    assert result.exit_code == 1
    assert "FAIL  codex     0.169.0" in result.stdout
    assert "not logged in: no credentials found" in result.stdout
    assert "fix: run `codex login`, or set OPENAI_API_KEY" in result.stdout
    assert calls.read_text() == "--version\n"  # asked its version, nothing else


def test_credentials_in_a_variable_or_the_clis_own_file_count_as_logged_in(
    project: Project, bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_codex(bin_dir)
    project.write({"ralph.yaml": "agent: codex\n"})
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    result = project.run("doctor")
    assert result.exit_code == 0, result.stdout
    assert "credentials: OPENAI_API_KEY" in result.stdout
    assert "sk-test" not in result.stdout  # the name, never the value
    monkeypatch.delenv("OPENAI_API_KEY")
    auth = Path.home() / ".codex" / "auth.json"
    auth.parent.mkdir()
    auth.write_text("{}")
    result = project.run("doctor")
    assert result.exit_code == 0, result.stdout
    assert f"credentials: {auth}" in result.stdout
    assert "ready: everything this ralph.yaml needs works here" in result.stdout


def test_a_codex_custom_provider_key_named_by_env_key_counts_as_logged_in(
    project: Project, bin_dir: Path
) -> None:
    """The pool that `ralph run` drives (a provider of its own, its key in agent.env) is ready:
    doctor finds the key where the provider's `env_key` says, and never prints its value."""
    fake_codex(bin_dir)
    provider = '{name="mine",base_url="http://127.0.0.1:9/v1",env_key="MINE_KEY"}'
    project.write(
        {
            "ralph.yaml": (
                "agent:\n  name: codex\n  env: {MINE_KEY: mine-secret-value}\n"
                f"  args: ['-c', 'model_provider=mine', '-c', 'model_providers.mine={provider}']\n"
            )
        }
    )
    result = project.run("doctor")
    assert result.exit_code == 0, result.stdout
    assert "credentials: MINE_KEY" in result.stdout
    assert "mine-secret-value" not in result.stdout
    # the same provider defined in Codex's own config.toml
    project.write({"ralph.yaml": "agent:\n  name: codex\n  env: {MINE_KEY: mine-secret-value}\n"})
    config = Path.home() / ".codex" / "config.toml"
    config.parent.mkdir(exist_ok=True)
    config.write_text('[model_providers.mine]\nenv_key = "MINE_KEY"\n')
    result = project.run("doctor")
    assert result.exit_code == 0, result.stdout
    assert "credentials: MINE_KEY" in result.stdout
    config.write_text("")
    assert project.run("doctor").exit_code == 1  # no provider key, no login: still a failure


def test_a_needed_sandbox_that_cannot_start_fails_with_the_fix(
    project: Project, bin_dir: Path
) -> None:
    fake(bin_dir, "bwrap", "echo 'bwrap: No permissions to create new namespace' >&2; exit 1")
    project.write({"ralph.yaml": "sandbox: bwrap\n"})
    result = project.run("doctor")
    assert result.exit_code == 1
    assert "FAIL  bwrap" in result.stdout
    assert "No permissions to create new namespace" in result.stdout
    assert "fix: user namespaces are off or restricted here" in result.stdout
    # a profile ralph.yaml does not ask for is reported but is not needed
    assert "srt not found on PATH (not needed)" in result.stdout


def test_json_lists_every_check(project: Project, bin_dir: Path) -> None:
    fake_codex(bin_dir)
    result = project.run("doctor", "--json")
    data = json.loads(result.stdout)
    assert result.exit_code == 0 and data["ok"] is True  # nothing is needed: no agent named
    names = {(c["area"], c["name"]) for c in data["checks"]}
    assert {("sandbox", "srt"), ("sandbox", "bwrap"), ("agent", "codex")} <= names
    codex = next(c for c in data["checks"] if c["name"] == "codex")
    assert codex["state"] == "warn" and codex["needed"] is False


def fake_claude(bin_dir: Path, monkeypatch: pytest.MonkeyPatch, *, euid: int) -> None:
    fake(bin_dir, "claude", 'echo "2.1.0 (Claude Code)"')
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-test")
    monkeypatch.delenv("IS_SANDBOX", raising=False)
    monkeypatch.setattr(os, "geteuid", lambda: euid, raising=False)  # who runs ralph


def test_claude_as_root_without_is_sandbox_fails_with_the_runs_own_hint(
    project: Project, bin_dir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake_claude(bin_dir, monkeypatch, euid=0)
    project.write({"ralph.yaml": "agent: claude\n"})
    result = project.run("doctor")
    assert result.exit_code == 1, result.stdout
    assert "FAIL  claude" in result.stdout
    assert "it refuses to start as root without IS_SANDBOX=1" in result.stdout
    assert 'fix: set IS_SANDBOX=1 in agent.env (ralph.yaml: agent: {env: {IS_SANDBOX: "1"}})' in (
        result.stdout
    )


@pytest.mark.parametrize(
    ("euid", "yaml"),
    [
        (1000, "agent: claude\n"),  # not root: Claude Code starts
        (0, 'agent:\n  name: claude\n  env: {IS_SANDBOX: "1"}\n'),  # the machine says so
    ],
)
def test_claude_that_will_start_is_ok(
    project: Project, bin_dir: Path, monkeypatch: pytest.MonkeyPatch, euid: int, yaml: str
) -> None:
    fake_claude(bin_dir, monkeypatch, euid=euid)
    project.write({"ralph.yaml": yaml})
    result = project.run("doctor")
    assert result.exit_code == 0, result.stdout
    assert "ok    claude" in result.stdout and "IS_SANDBOX" not in result.stdout
