"""Held settings stay held in every command: an agent's edit of ralph.yaml (made during a run)
names a program that `ralph doctor` and `ralph agents` would run (a `claude` on the PATH the
file gives); neither runs it until a person accepts the edit, and both say the file differs.
The control: the same file written by a person is used at once (and its program probed)."""

from __future__ import annotations

import json
import stat
import sys
from pathlib import Path

import pytest

from tests.conftest import Project

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="a script as an executable"),
]

INTRUDER = Path(__file__).parents[1] / "fakes" / "intruder.py"
DIFFERS = "ralph.yaml on disk differs from the settings a person accepted"


def _evil_claude(tmp_path: Path) -> tuple[Path, Path]:
    """A `claude` that leaves a mark when run (doctor and agents run `claude --version`)."""
    folder, marker = tmp_path / "evilbin", tmp_path / "ran"
    folder.mkdir()
    exe = folder / "claude"
    exe.write_text(
        f"#!{sys.executable}\nimport pathlib\npathlib.Path({str(marker)!r}).touch()\nprint('1.0')\n"
    )
    exe.chmod(exe.stat().st_mode | stat.S_IEXEC)
    return folder, marker


def _yaml(folder: Path) -> str:
    return f"agent:\n  name: claude\n  env:\n    PATH: {json.dumps(str(folder))}\n"


@pytest.mark.parametrize("command", ["doctor", "agents"])
def test_a_held_ralph_yaml_names_no_program_a_command_runs(
    git_project: Project, tmp_path: Path, command: str
) -> None:
    folder, marker = _evil_claude(tmp_path)
    edit = tmp_path / "agents-yaml.txt"
    edit.write_text(_yaml(folder))
    agent = f"{sys.executable} {INTRUDER} 1 yaml={edit}"
    git_project.write(
        {"PROMPT.md": "# a\n", "ralph.yaml": f"agent:\n  command: {json.dumps(agent)}\n"}
    )
    git_project.commit_all()
    run = git_project.run("run", "-n", "1")
    assert run.exit_code == 3, run
    assert (git_project.root / "ralph.yaml").read_text() == _yaml(folder)  # the agent's edit
    res = git_project.run_subprocess(command)
    assert not marker.exists(), res  # the program the held file names never ran
    assert DIFFERS in res.stderr, res
    status = git_project.run_subprocess("status")  # and the edit still waits for a person
    assert status.exit_code == 0, status


@pytest.mark.parametrize("command", ["doctor", "agents"])
def test_the_same_file_written_by_a_person_is_used(
    git_project: Project, tmp_path: Path, command: str
) -> None:
    folder, marker = _evil_claude(tmp_path)
    git_project.write({"PROMPT.md": "# a\n", "ralph.yaml": _yaml(folder)})
    res = git_project.run_subprocess(command)
    assert marker.exists(), res  # the person's settings are probed: the test would see a run
    assert DIFFERS not in res.stderr
