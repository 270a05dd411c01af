"""commands/doctor.py: `ralph doctor`."""

from __future__ import annotations

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


def test_a_needed_cli_that_is_missing_fails_and_says_how_to_install_it(
    project: Project, bin_dir: Path
) -> None:
    project.write({"ralph.yaml": "agent: codex\n"})
    result = project.run("doctor")
    assert result.exit_code == 1
    assert "FAIL  codex     not installed" in result.stdout
    assert "fix: install Codex CLI (npm install -g @openai/codex)" in result.stdout
    assert "1 problem(s) stop a run" in result.stdout
    # the agents ralph.yaml does not use are reported in one line, and do not fail it
    assert "warn  gemini" not in result.stdout
    assert "not installed (not needed)" not in result.stdout
    absent = [line for line in result.stdout.splitlines() if "not needed by" in line]
    assert len(absent) == 1, result.stdout
    assert absent[0].startswith("  -     not installed, not needed by this ralph.yaml: ")
    assert "gemini" in absent[0] and "codex" not in absent[0]


def test_a_custom_command_that_is_not_found_fails(project: Project, bin_dir: Path) -> None:
    project.write({"ralph.yaml": "agent: {command: no-such-agent --yes}\n"})
    result = project.run("doctor")
    assert result.exit_code == 1
    assert "FAIL  no-such-agent" in result.stdout
    assert os.environ["PATH"] == str(bin_dir)


def test_what_ralph_yaml_does_not_need_is_no_warning_and_a_needed_problem_still_is() -> None:
    from ralph.commands.doctor import Check, render

    checks = [
        Check("sandbox", "docker", "warn", "docker (no sandbox.image named)", False, "name one"),
        Check("sandbox", "srt", "warn", "srt not found on PATH", False, "install srt"),
        Check("agent", "gemini", "warn", "1.0; no credentials found", False, "gemini login"),
        Check("agent", "claude", "warn", "2.1; no credentials found where ralph can look", True),
        Check("agent", "codex", "fail", "1.0; not logged in", True, "codex login"),
    ]
    lines = render(checks).splitlines()
    idle = [line for line in lines if "(not needed)" in line]
    assert len(idle) == 3 and all(line.startswith("  -  ") for line in idle), lines
    assert not any(fix in "\n".join(lines) for fix in ("name one", "install srt", "gemini login"))
    # control: what is needed still warns, and still fails
    assert any(line.startswith("  warn  claude") for line in lines), lines
    assert any(line.startswith("  FAIL  codex") for line in lines)
    assert "fix: codex login" in "\n".join(lines)


def test_doctor_warns_when_no_test_file_is_recognised(project: Project, bin_dir: Path) -> None:
    """A warning, not a problem: the run can start. Control: node's `*.test.mjs` is found."""
    project.write({"checks/calc.js": "require('node:test');\n"})
    result = project.run("doctor")
    assert "tests\n  warn  files  " in result.stdout, result.stdout
    assert "no test file matches ralph's test patterns" in result.stdout
    assert "fix: name yours with `tests:` in ralph.yaml" in result.stdout
    assert "problem(s)" not in result.stdout.replace("0 problem(s)", "")
    project.write({"lib/calc.test.mjs": "import test from 'node:test';\n"})
    found = project.run("doctor").stdout
    assert "ok    files  " in found and "1 test file found" in found
