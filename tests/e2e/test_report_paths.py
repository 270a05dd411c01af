"""--report-json and --junit write to what the path names: through a symlink, into a named pipe,
to a device or /dev/stdout; only a regular file is replaced (atomically)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import Project

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="symlinks, FIFOs, /dev")


@pytest.mark.parametrize("redirect", ["pipe", "file"])
def test_dev_stdout_gets_the_report_and_stays_what_it_was(tmp_path: Path, redirect: str) -> None:
    script = (
        "import sys; from pathlib import Path; "
        "from ralph.store.disk.files import write_text_through;"
        "print('before', flush=True); write_text_through(Path('/dev/stdout'), 'REPORT\\n');"
        "print('after', flush=True)"
    )
    if redirect == "pipe":
        out = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, check=True
        ).stdout
    else:
        path = tmp_path / "out.txt"
        with path.open("w") as f:
            subprocess.run([sys.executable, "-c", script], stdout=f, check=True)
        out = path.read_text()
        assert [p.name for p in tmp_path.iterdir()] == ["out.txt"]
    assert out == "before\nREPORT\nafter\n"


@pytest.mark.slow
def test_report_json_to_dev_stdout_through_the_cli(project: Project) -> None:
    project.write({"PROMPT.md": "# goal\n"})
    agent = project.script({"*": [{"signal": "DONE"}]})
    res = project.run_subprocess(
        "run", "--agent-command", agent, "--quiet", "--report-json", "/dev/stdout"
    )
    assert res.exit_code == 0, res
    start = res.stdout.index("{\n")
    data, _ = json.JSONDecoder().raw_decode(res.stdout[start:])
    assert data["complete"] is True
