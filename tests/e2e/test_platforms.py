"""Linux, macOS and Windows: the run lock, command lines and stop signals on each.

The Windows branches that can be reached from here are tested here on every platform (the
command-line split is a pure rule; the lock probe Windows uses works on any filelock)."""

from __future__ import annotations

import sys

import pytest

from tests.conftest import Project

DONE = [{"signal": "DONE"}]


def test_an_agent_command_with_a_windows_path_runs_that_program(project: Project) -> None:
    # On Windows sys.executable is C:\...\python.exe: a POSIX split would have eaten its
    # backslashes and no agent would start.
    project.write({"PROMPT.md": "# goal\n"})
    res = project.run("run", "--agent-command", project.script({"*": DONE}), "-n", "3")
    assert res.exit_code == 0, res
    assert project.counts() == {"PROMPT.md": 3}


@pytest.mark.slow
def test_a_killed_run_leaves_its_lock_to_the_next(project: Project) -> None:
    # The OS releases the lock of a process that dies, however it dies.
    project.write({"PROMPT.md": "# goal\n"})
    code = (
        "import sys, time\n"
        "from pathlib import Path\n"
        "from ralph.store.live.runlock import RunLock\n"
        "with RunLock(Path(sys.argv[1])):\n"
        "    print('locked', flush=True)\n"
        "    time.sleep(60)\n"
    )
    import subprocess

    with subprocess.Popen(
        [sys.executable, "-c", code, str(project.root / ".ralph")],
        stdout=subprocess.PIPE,
        text=True,
    ) as holder:
        try:
            assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
            refused = project.run("run", "--agent-command", project.script({"*": DONE}))
            assert refused.exit_code == 1 and "another ralph run is live" in refused.stderr
        finally:
            holder.kill()  # SIGKILL on Linux and macOS, TerminateProcess on Windows
            holder.wait(timeout=10)
    res = project.run("run", "--agent-command", project.script({"*": DONE}), "-n", "3")
    assert res.exit_code == 0, res


@pytest.mark.slow
def test_output_that_cannot_encode_ralphs_characters_is_no_traceback(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Piped output on Windows is in the ANSI code page; here an ASCII encoding stands in for
    # it: `status` printed a traceback on its first em dash.
    project.write({"PROMPT.md": "# goal\n", "specs/b.spec.md": "# b\n"})
    assert project.run("run", *project.fake({"*": DONE}), "-n", "1").exit_code == 3
    monkeypatch.setenv("PYTHONIOENCODING", "ascii")
    for args in (("status",), ("history",), ("run", "--agent", "demo", "-n", "1")):
        res = project.run_subprocess(*args)
        assert res.exit_code in (0, 3), (args, res)
        assert "Traceback" not in res.stderr and "UnicodeEncodeError" not in res.stderr, res
    assert "PROMPT.md" in project.run_subprocess("status").stdout
