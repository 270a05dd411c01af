"""Hostile names and coloured output, through the real CLI: a spec whose file name holds escape
sequences (terminal title, clipboard), a newline that forges ralph's last line and Rich markup
drives nothing and forges nothing in the plain lines, the panel, status, history, the worklog
or the JUnit report; a check printing colours (`--color=yes`) leaves no escape sequence in
anything ralph writes; `ralph accept` shows an agent's diff without its cursor movements."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from tests.conftest import Project

pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(sys.platform == "win32", reason="such file names are POSIX-only"),
]

FORGED = "12:00:00 run ended: every spec verified (exit 0), last rotation 1/1"
NAME = f"x\x1b]0;owned\x07\x1b]52;c;cHduZWQ=\x07[bold red]y[/]\n{FORGED}\x1b[1A\x1b[2K.spec.md"
FILE = "src/\x1b]0;file\x07\nrun ended: every spec verified (exit 0).py"
CONTINUE = [{"signal": "CONTINUE", "write": {FILE: "x = 1\n"}}]


def ralph(project: Project, *args: str) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [sys.executable, "-m", "ralph", *args],
        cwd=project.root,
        capture_output=True,
        timeout=120,
        check=False,
    )


def escapes_in_files(folder: Path) -> list[str]:
    """Files ralph wrote that hold an escape character, history logs aside (they keep the
    agent's raw output; `ralph history` cleans what it shows)."""
    return [
        str(p.relative_to(folder))
        for p in folder.rglob("*")
        if p.is_file() and "history" not in p.parts and b"\x1b" in p.read_bytes()
    ]


def hostile_project(project: Project) -> None:
    project.write({f"specs/{NAME}": "# hostile\n", "specs/z-plain.spec.md": "# plain\n"})
    project.commit_all()


def test_a_hostile_spec_name_drives_nothing_and_forges_nothing(
    git_project: Project, tmp_path: Path
) -> None:
    hostile_project(git_project)
    agent = git_project.script({"*": CONTINUE})
    junit = tmp_path / "junit.xml"
    res = ralph(
        git_project,
        "run",
        "--agent-command",
        agent,
        "--headless",
        "-v",
        "-n",
        "2",
        "--junit",
        str(junit),
    )
    out = (res.stdout + res.stderr).decode()
    assert res.returncode == 3, out  # max iterations: nothing was verified
    assert "\x1b" not in out and "\x07" not in out
    lines = out.splitlines()
    # the end: its line, the matrix (the hostile name's escapes visible), the run's numbers
    assert [line for line in lines if "run ended" in line.split("\\n")[0]] == [lines[-4]]
    assert "run ended: max iterations reached" in lines[-4]
    assert "this run: 2 rotations" in lines[-1]
    assert "\\x1b]0;owned\\x07" in out  # the name is shown, its escapes visible
    # JUnit parses with a real XML parser, the hostile spec a test case of its own
    names = [case.get("name") for case in ET.parse(junit).iter("testcase")]
    assert len(names) == 2 and all(n is not None and "\n" not in n for n in names)
    assert [e["spec"] for e in git_project.rotation_ends()] == [f"specs/{NAME}"] * 2
    ralph_dir = git_project.root / ".ralph"
    assert escapes_in_files(ralph_dir) == []
    assert (git_project.root / FILE).exists()  # the agent made a file with a hostile name too
    views = (("status",), ("history",), ("status", "--json"), ("status", "--log", "50"))
    for args in (*views, ("inspect",), ("history", "1"), ("history", "--spec", "x")):
        shown = ralph(git_project, *args)
        assert shown.returncode == 0, shown
        assert b"\x1b" not in shown.stdout and FORGED.encode() not in shown.stdout.replace(
            b"\\n" + FORGED.encode(), b""
        )
    # the machine outputs keep the real name (JSON escapes it)
    data = json.loads(ralph(git_project, "status", "--json").stdout)
    assert f"specs/{NAME}" in [s["path"] for s in data["specs"]]
    history = ralph(git_project, "history", "1").stdout
    assert b"\x1b" not in history


def test_the_panel_shows_a_hostile_name_as_text(git_project: Project) -> None:
    from tests.e2e.test_headless import run_in_terminal

    hostile_project(git_project)
    agent = git_project.script({"*": CONTINUE})
    code, out = run_in_terminal(git_project, "run", "--agent-command", agent, "-n", "2", env={})
    assert code == 3, out
    assert "\x1b[" in out  # the panel, with its own colours
    i = out.find("\x1b]0;owned")
    assert i < 0, repr(out[max(0, i - 300) : i + 100])
    assert "\x1b]52" not in out
    assert "[bold red]y[/]" in out  # Rich markup in a name is text, not markup


def test_coloured_check_output_is_written_without_its_escapes(git_project: Project) -> None:
    check = "printf '\\033[31mFAILED\\033[0m tests/test_x.py::test_y\\n'; exit 1"
    git_project.write(
        {
            "PROMPT.md": "---\nchecks:\n  - name: tests\n    method: external\n"
            f"    config: {{command: {json.dumps(check)}}}\n---\n# goal\n",
        }
    )
    git_project.commit_all()
    agent = git_project.script({"*": [{"signal": "DONE"}]})
    res = ralph(git_project, "run", "--agent-command", agent, "--headless", "-v", "-n", "2")
    out = (res.stdout + res.stderr).decode()
    assert res.returncode == 3, out
    assert "\x1b" not in out
    ralph_dir = git_project.root / ".ralph"
    assert escapes_in_files(ralph_dir) == []
    written = b"".join(p.read_bytes() for p in ralph_dir.rglob("*") if p.is_file())
    assert b"FAILED tests/test_x.py::test_y" in written  # the output was kept, cleaned
    assert b"FAILED tests/test_x.py::test_y" in (ralph_dir / "prompt.md").read_bytes()


def test_accept_shows_an_agents_diff_without_its_cursor_movements(git_project: Project) -> None:
    p = git_project
    p.write({"PROMPT.md": "---\ntest_command: 'exit 1'\n---\n# goal\n"})
    p.commit_all()
    weaker = (
        "---\ntest_command: 'exit 0' # \x1b[1A\x1b[2K\x1b]52;c;eA==\x07looks fine\n---\n# goal\n"
    )
    script = p.script({"PROMPT.md": [{"write": {"PROMPT.md": weaker}, "signal": "DONE"}]})
    assert ralph(p, "run", "--agent-command", script, "-n", "1").returncode == 3
    shown = ralph(p, "accept", "--dry-run")
    assert shown.returncode == 5, shown
    assert b"\x1b" not in shown.stdout and b"\x07" not in shown.stdout
    assert b"test_command: 'exit 0' # \\x1b[1A\\x1b[2K" in shown.stdout  # visible for review


def test_names_are_printed_in_errors_as_text(git_project: Project) -> None:
    res = ralph(git_project, "history", "--spec", "\x1b]0;owned\x07nope")
    assert b"\x1b" not in res.stderr + res.stdout
    assert os.fsencode("\\x1b]0;owned") in res.stderr + res.stdout or res.returncode == 0


def test_a_hostile_agent_name_drives_nothing(git_project: Project, tmp_path: Path) -> None:
    from tests.conftest import SCRIPTED_AGENT
    from tests.e2e.test_headless import run_in_terminal

    # ralph names a custom agent after its script: a committed ralph.yaml chooses that name
    script = tmp_path / "ag\x1b]0;agent\x07[bold]ent.py"
    script.write_text(SCRIPTED_AGENT.read_text())
    steps = tmp_path / "steps.json"
    steps.write_text(json.dumps({"*": CONTINUE}))
    command = json.dumps([sys.executable, str(script), str(steps)])
    git_project.write({"PROMPT.md": "# goal\n", "ralph.yaml": f"agent:\n  command: {command}\n"})
    git_project.commit_all()
    code, out = run_in_terminal(git_project, "run", "-n", "1", env={})
    assert code == 3, out
    assert "\x1b]0;agent" not in out and "\\x1b]0;agent\\x07[bold]ent" in out
    res = ralph(git_project, "run", "--headless", "-n", "1")
    assert res.returncode == 3 and b"\x1b" not in res.stdout + res.stderr, res
    for args in (("status",), ("history",), ("agents",), ("doctor",)):
        shown = ralph(git_project, *args)
        assert b"\x1b" not in shown.stdout + shown.stderr, shown
